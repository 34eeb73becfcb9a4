"""Which exercise tree a command works on: the one discovery rule every command shares.

    from grader.roots import discover_root
    root = discover_root()          # a Path holding exercises/ (and, in a checkout, solutions/)

The rule, first match wins:

1. the current folder or one of its parents (walking up, as git finds its repository) that is an
   exercise tree: it holds `exercises/<track>/<NN_name>/exercise.toml` (a candidate bundle or the
   grader's checkout) or a pack.toml (an exercise pack, `grader.packs`);
2. `$GRADER_ROOT`, when set;
3. the tree the grader was installed from (an editable install of the checkout or of a bundle).

So a grader installed from a checkout and run inside a bundle works on the bundle's files.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from grader.errors import UsageError

INSTALL_TREE = Path(__file__).resolve().parent.parent


def is_exercise_tree(folder: Path) -> bool:
    """True when `folder` holds at least one `exercises/<track>/<NN_name>/exercise.toml`, or is an
    exercise pack (a pack.toml: `grader.packs`), even one without an exercise yet."""
    if (folder / "pack.toml").is_file():
        return True
    exercises = folder / "exercises"
    if not exercises.is_dir():
        return False
    try:
        return next(exercises.glob("*/[0-9][0-9]_*/exercise.toml"), None) is not None
    except OSError:
        return False


@dataclass(frozen=True)
class Root:
    """An exercise tree and how it was found ("current folder", "$GRADER_ROOT", "install tree")."""

    path: Path
    found_by: str

    @property
    def is_bundle(self) -> bool:
        """A candidate bundle (made by `grader export`) rather than the grader's own checkout."""
        return not (self.path / "solutions").is_dir()


def find_root(cwd: Path | None = None) -> Root | None:
    """The exercise tree by the module's rule, or None when no rule finds one."""
    start = Path(cwd or Path.cwd()).resolve()
    for folder in (start, *start.parents):
        if is_exercise_tree(folder):
            return Root(folder, "current folder")
    env = os.environ.get("GRADER_ROOT")
    if env:
        return Root(Path(env).resolve(), "$GRADER_ROOT")
    if is_exercise_tree(INSTALL_TREE):
        return Root(INSTALL_TREE, "install tree")
    return None


def discover_root(cwd: Path | None = None) -> Path:
    """The folder holding exercises/ by the module's rule. Raises UsageError, saying where to run,
    when there is none."""
    root = find_root(cwd)
    if root is None:
        start = Path(cwd or Path.cwd()).resolve()
        raise UsageError(f"no exercises here: {start} is not inside a candidate bundle or the grader's checkout "
                         f"(a folder holding exercises/<track>/<NN_name>/). cd into your bundle, or set "
                         f"GRADER_ROOT to it")
    return root.path


def discover_working_root(command: str, cwd: Path | None = None) -> Path:
    """The tree that a command which works on the candidate's files (watch, reset) runs on: found
    from the current folder or $GRADER_ROOT, never the install tree (its files are not the ones the
    user is editing here). Raises UsageError saying where to run it."""
    root = find_root(cwd)
    if root is None or root.found_by == "install tree":
        start = Path(cwd or Path.cwd()).resolve()
        raise UsageError(f"`grader {command}` works on the exercise files of the bundle or checkout you run it in, "
                         f"and {start} is not inside one: cd into your bundle (the folder holding exercises/ and "
                         f"README.md) and run it there, or set GRADER_ROOT to that folder")
    return root.path
