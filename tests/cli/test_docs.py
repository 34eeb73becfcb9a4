"""The docs (README.md and docs/*.md) are checked like code: their generated parts (the CLI
reference in docs/cli.md, sample outputs) are current, every command is in the CLI reference,
every relative link and its anchor resolve, every `grader ...` example names real commands and
options, and the README stays a short entry point that links every page."""
from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import click
import pytest

from grader.cli import cli

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
CLI_REFERENCE = ROOT / "docs" / "cli.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
GENERATED = [page for page in PAGES if "[[[cog" in page.read_text()]
README_MAX_LINES = 300

FENCE = re.compile(r"^\s*(```|~~~)")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
CODE_SPAN = re.compile(r"`[^`\n]+`")


def _name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def _prose_and_code(text: str) -> tuple[list[str], list[str]]:
    """The page's lines outside fenced code blocks, and those inside."""
    prose, code, fenced = [], [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        (code if fenced else prose).append(line)
    return prose, code


def _anchors(page: Path) -> set[str]:
    """The anchors GitHub makes for the page's headings (duplicates get -1, -2...)."""
    prose, _ = _prose_and_code(page.read_text())
    seen: dict[str, int] = {}
    anchors = set()
    for line in prose:
        match = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not match:
            continue
        slug = re.sub(r"[^\w\- ]", "", match.group(1).lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        anchors.add(slug if n == 0 else f"{slug}-{n}")
    return anchors


def _commands(group: click.Group, path: tuple[str, ...] = ()):
    """Every command and subcommand, as (its words after `grader`, the command)."""
    for name, command in group.commands.items():
        yield (*path, name), command
        if isinstance(command, click.Group):
            yield from _commands(command, (*path, name))


def _examples(page: Path) -> list[str]:
    """Every `grader ...` the page shows: the lines of its code blocks (fenced or indented) that
    run grader (`$ grader ...`, or `grader ...` as in --help's examples; continuation lines
    joined), and the code spans of its prose that start with `grader `."""
    prose, code = _prose_and_code(page.read_text())
    indented = [line for line in prose if line.startswith("    ")]
    found, joined = [], ""
    for line in code + [""] + indented:
        continued = line.rstrip().endswith("\\")
        joined += line.rstrip().rstrip("\\").strip() + " " if continued else line.strip()
        if not continued:
            command = joined.removeprefix("$ ")
            if command.startswith("grader "):
                found.append(command)
            joined = ""
    for line in prose:
        found += [span.strip("`") for span in CODE_SPAN.findall(line) if span.startswith("`grader ")]
    return found


def _check_example(example: str) -> str | None:
    """What is wrong with a `grader ...` example (None: every command and option exists)."""
    try:
        words = shlex.split(example, comments=True)
    except ValueError as exc:
        return f"cannot parse it: {exc}"
    for stop in ("|", ">", ">>", ";", "&&", "||"):
        if stop in words:
            words = words[:words.index(stop)]
    words = [word.strip("[]") for word in words[1:]]
    command: click.Command = cli
    while words and isinstance(command, click.Group) and words[0] in command.commands:
        command = command.commands[words.pop(0)]
    options = {"--help", "-h"}
    for param in command.params:
        options.update(getattr(param, "opts", []), getattr(param, "secondary_opts", []))
    for word in words:
        if word.startswith("--") and len(word) > 2 or re.fullmatch(r"-[A-Za-z]", word):
            if word.split("=", 1)[0] not in options:
                return f"`grader {command.name}` has no option {word.split('=', 1)[0]}"
    return None


@pytest.mark.parametrize("page", GENERATED, ids=_name)
def test_generated_parts_are_current(page):
    result = subprocess.run([sys.executable, "-m", "cogapp", "--check", "--diff", _name(page)], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0, f"{_name(page)} is stale: run `make docs`\n{result.stdout}{result.stderr}"


def test_every_command_is_in_the_cli_reference():
    assert CLI_REFERENCE in GENERATED, "docs/cli.md must be generated from --help (cog)"
    reference = CLI_REFERENCE.read_text()
    for path, _ in _commands(cli):
        words = " ".join(path)
        assert f"$ grader {words} --help" in reference, f"`grader {words}` is missing from docs/cli.md"


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_links_resolve(page):
    prose, _ = _prose_and_code(page.read_text())
    broken = []
    for line in prose:
        for target in LINK.findall(CODE_SPAN.sub("", line)):
            if re.match(r"[a-z]+:", target):  # https:, mailto:
                continue
            path, _, anchor = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            if not linked.exists():
                broken.append(f"{target}: no such file")
            elif anchor and linked.suffix == ".md" and anchor not in _anchors(linked):
                broken.append(f"{target}: {_name(linked)} has no heading #{anchor}")
    assert not broken, f"{_name(page)}: " + "; ".join(broken)


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_examples_use_real_commands_and_options(page):
    wrong = [f"`{example}`: {problem}" for example in _examples(page)
             if (problem := _check_example(example)) is not None]
    assert not wrong, f"{_name(page)}:\n" + "\n".join(wrong)


def test_readme_is_a_short_entry_point():
    lines = README.read_text().count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines: move detail to docs/ (at most {README_MAX_LINES})"
    linked = {(README.parent / target.partition("#")[0]).resolve() for target in LINK.findall(README.read_text())}
    missing = [_name(page) for page in PAGES[1:] if page not in linked]
    assert not missing, f"README.md links no {', '.join(missing)}"


def test_quick_start_commands_exist():
    readme = README.read_text()
    makefile = (ROOT / "Makefile").read_text()
    assert "$ make demo" in readme and "$ make test" in readme
    assert "\ndemo:" in makefile and "\ntest:" in makefile
    assert "make test" in (ROOT / ".ci" / "run").read_text()
