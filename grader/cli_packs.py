"""The CLI's authoring parts, kept out of cli.py: `grader new` (grader.scaffold) and the `--pack PATH`
option that every command working on exercises takes (grader.packs). `install(cli, handle_errors)`
adds both, once every command of cli.py is defined."""

from __future__ import annotations

import functools
import os
from pathlib import Path

import click

PACK_HELP = ("An exercise pack (a folder with pack.toml) whose exercises join the catalogue; repeatable, "
             "and $GRADER_PACKS adds more (see docs/authoring.md, 'Packs').")
WARN_ON = ("validate", "mutate")  # commands that warn on stderr about a pack validated with another torch


def install(cli: click.Group, handle_errors) -> None:
    """Add `--pack` to every command (and subcommand) of `cli`, and the `new` command."""
    for name, cmd in list(cli.commands.items()):
        commands = cmd.commands.values() if isinstance(cmd, click.Group) else [cmd]
        for command in commands:
            if command.callback is not None and not any(p.name == "packs" for p in command.params):
                _add_pack_option(command, handle_errors, warn=name in WARN_ON)
    cli.add_command(_new_command(handle_errors))


def _add_pack_option(command: click.Command, handle_errors, warn: bool) -> None:
    command.params.append(click.Option(["--pack", "packs"], multiple=True, metavar="PATH",
                                       type=click.Path(path_type=Path), help=PACK_HELP))  # checked by grader.pack_manifest
    original = command.callback

    @functools.wraps(original)
    def callback(*args, packs: tuple[Path, ...] = (), **kwargs):
        from grader.pack_manifest import PACKS_ENV, use_packs

        before = os.environ.get(PACKS_ENV)
        try:
            handle_errors(use_packs)(list(packs))  # a bad pack: its error and exit 2, before the command runs
            if warn:
                handle_errors(_warn_torch)()
            return original(*args, **kwargs)
        finally:  # the command's packs, not the next one's (tests invoke many commands in one process)
            if before is None:
                os.environ.pop(PACKS_ENV, None)
            else:
                os.environ[PACKS_ENV] = before

    command.callback = callback


def _warn_torch() -> None:
    from grader.catalog import default_root
    from grader.pack_manifest import running_torch, torch_differs, torch_warning
    from grader.packs import active_packs

    running = running_torch()
    for pack in active_packs(default_root()):
        if running and torch_differs(pack.torch, running):
            click.echo("Warning: " + torch_warning(pack.label, pack.torch, running), err=True)


def _new_command(handle_errors) -> click.Command:
    @click.command("new")
    @click.argument("name")
    @click.option("--track", default=None,
                  help="The track folder to put it in [default: the track of the root's last exercise].")
    @click.option("--root", "root", type=click.Path(file_okay=False, path_type=Path), default=None,
                  help="The exercise root to add it to: a pack (a folder holding pack.toml) or the grader's "
                       "checkout [default: the tree you are in, found as every command finds it].")
    @handle_errors
    def new(name: str, track: str | None, root: Path | None) -> None:
        """Scaffold exercise NAME (its stub's module name, e.g. attention_mask): exercises/TRACK/NN_NAME/
        with the README's sections, exercise.toml, the stub, public and hidden checks (one example of
        each kind of helper), hints and the interviewer's guide, and solutions/TRACK/NN_NAME/ with a
        reference to write, mistakes/ and alternatives/. NN follows the root's last exercise. Every
        placeholder reads TODO(grader new): `grader validate NAME` reports each one until it is
        filled in (exit 3). Nothing is written over an existing exercise or outside an exercise root
        (exit 2).

        \b
        Examples:
          grader new attention_mask --track modules
          grader new attention_mask --root ../acme-pack
        """
        from grader.pack_manifest import configured_paths
        from grader.roots import find_root
        from grader.scaffold import scaffold

        made = scaffold(name, track, root)
        rel = made.exercise_dir.relative_to(made.root)
        click.echo(f"Created {rel}/ ({', '.join(p.name for p in made.files if p.parent == made.exercise_dir)})")
        click.echo(f"    and {made.solutions_dir.relative_to(made.root)}/ (the reference {name}.py, mistakes/, "
                   f"alternatives/) in {made.root}")
        found = find_root()
        here = found is not None and found.path == made.root
        given = any(p.resolve() == made.root for p in configured_paths())
        pack = "" if here or given or made.pack is None else f" --pack {made.root}"
        click.echo(f"Fill in every {_marker()}, then: grader validate {name}{pack}")

    return new


def _marker() -> str:
    from grader.scaffold import MARKER

    return MARKER
