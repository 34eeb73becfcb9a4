"""What `grader export` adds to a bundle for practice mode: each exercise's hints.md, the pristine
stubs (`.grader/stubs/`, for `grader reset`), and `.grader/bundle.toml` (whether progress is
recorded; the kinds, never the content, of each exercise's hidden checks)."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from grader.catalog import CHECK_KINDS, Exercise
from grader.practice.hints import hints_path
from grader.practice.reset import STUBS_DIR
from grader.practice.state import BUNDLE_FILE, STATE_DIR
from grader.progress_record import PROGRESS_FILE


def hint_files(ex: Exercise) -> list[Path]:
    path = hints_path(ex)
    return [path] if path.is_file() else []


def hidden_check_kinds(ex: Exercise) -> list[str]:
    """The kinds named by the `@check(...)` markers of the exercise's test_hidden.py, in the
    catalog's order (what the hidden checks cover, without saying how)."""
    try:
        tree = ast.parse(ex.hidden_tests.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return []
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "check":
            args = [*node.args[:1], *(k.value for k in node.keywords if k.arg == "kind")]
            found.update(a.value for a in args if isinstance(a, ast.Constant) and a.value in CHECK_KINDS)
    return [k for k in CHECK_KINDS if k in found]


def write_practice_files(dest: Path, chosen: list[Exercise], record_progress: bool) -> None:
    stubs = dest / STATE_DIR / STUBS_DIR
    stubs.mkdir(parents=True)
    for ex in chosen:
        (stubs / f"{ex.id}.py.orig").write_bytes(ex.stub.read_bytes())
    lines = ["# Written by `grader export`: practice-mode settings of this bundle.",
             f"record_progress = {'true' if record_progress else 'false'}", "", "[hidden_kinds]"]
    lines += [f"{json.dumps(ex.id)} = {json.dumps(hidden_check_kinds(ex))}" for ex in chosen]
    (dest / STATE_DIR / BUNDLE_FILE).write_text("\n".join(lines) + "\n", encoding="utf-8")


def progress_notice(record_progress: bool) -> str:
    """The bundle README's paragraph on the progress record ("" without --record-progress)."""
    if not record_progress:
        return ""
    return (f"**This bundle records your progress.** Each `grader watch` rerun, `grader check` and "
            f"`grader hint` appends a line (time, exercise, public score, hints used) to "
            f"`exercises/{PROGRESS_FILE}`, which is submitted with your files and shown to the "
            f"interviewer as a timeline. It is written on your machine and is not verified.\n\n")
