"""What `grader check` checks, from its arguments and where it runs (pytest's habits).

- no argument, inside an exercise's folder: that exercise;
- a file such as `broadcast_bias.py` (or a path to one): the exercise of that name, graded on
  that file;
- an exercise (05, 05_broadcast_bias, broadcast_bias), a track (autograd) or a comma list of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from grader.catalog import Catalog
from grader.errors import UsageError


@dataclass(frozen=True)
class CheckTarget:
    exercises: list[str]  # exercise ids
    path: Path  # what is graded: the exercises folder, a folder given with --path, or one file


def resolve_check(catalog: Catalog, args: tuple[str, ...], all_: bool, path: Path | None,
                  cwd: Path | None = None) -> CheckTarget:
    """Resolve `grader check` arguments; raises UsageError saying what to type instead."""
    cwd = (cwd or Path.cwd()).resolve()
    if all_:
        return CheckTarget([ex.id for ex in catalog.exercises], path or _in_place(catalog.exercises, catalog))
    if not args:
        here = [ex for ex in catalog.exercises if cwd == ex.dir.resolve() or cwd.is_relative_to(ex.dir.resolve())]
        if here:
            return CheckTarget([here[0].id], path or _in_place(here[:1], catalog))
        raise UsageError("name one or more exercises (e.g. `grader check 05`), or use --all")
    files = [a for a in args if a.strip().endswith(".py")]
    if not files:
        chosen = catalog.select(list(args))
        return CheckTarget([ex.id for ex in chosen], path or _in_place(chosen, catalog))
    if len(args) > 1:
        raise UsageError("check one file at a time (`grader check broadcast_bias.py`), or name exercises "
                         "(`grader check 05 10`)")
    file = cwd / Path(files[0].strip())  # relative to where the user is
    by_name = {f"{ex.name}.py": ex for ex in catalog.exercises}
    ex = by_name.get(file.name)
    if ex is None:
        raise UsageError(f"{file.name} is not an exercise's file: each exercise's code is in its stub's name, "
                         f"such as {next(iter(by_name), 'broadcast_bias.py')} (see `grader list`)")
    if not file.is_file():
        raise UsageError(f"{file}: no such file")
    if path is not None:
        raise UsageError("give either a file or --path, not both")
    if file.resolve() == ex.stub.resolve():
        return CheckTarget([ex.id], _in_place([ex], catalog))  # the exercise's own stub, edited in place
    return CheckTarget([ex.id], file.resolve())


def _in_place(chosen: list, catalog: Catalog) -> Path:
    """The exercises/ folder holding `chosen`'s own files (the catalog's, or an exercise pack's)."""
    folders = sorted({ex.dir.parent.parent for ex in chosen}) or [catalog.root / "exercises"]
    if len(folders) > 1:
        raise UsageError(f"these exercises live in {len(folders)} places ({', '.join(map(str, folders))}): check the "
                         f"exercises of each pack in a run of their own (e.g. `grader check acme`)")
    return folders[0]
