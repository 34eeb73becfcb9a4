"""`grader reset`: put an exercise's stub back, keeping the candidate's file as a backup.

The pristine stub comes from the bundle's `.grader/stubs/<NN_name>.py.orig` (written by
`grader export`) or, in the grader's checkout, from git (`HEAD`). The candidate's file is first
copied to `<name>.py.<UTC time>.bak` beside it: work is never lost.
"""

from __future__ import annotations

import datetime as dt
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from grader.catalog import Exercise
from grader.errors import GraderError, UsageError
from grader.practice.state import STATE_DIR, PracticeState

STUBS_DIR = "stubs"


def pristine_stub_path(root: Path, ex: Exercise) -> Path:
    return Path(root) / STATE_DIR / STUBS_DIR / f"{ex.id}.py.orig"


def pristine_stub(root: Path, ex: Exercise) -> bytes:
    """The stub as exported (bundle) or committed (checkout). Raises UsageError when neither exists."""
    saved = pristine_stub_path(root, ex)
    if saved.is_file():
        return saved.read_bytes()
    rel = ex.stub.resolve().relative_to(Path(root).resolve()).as_posix()
    try:
        done = subprocess.run(["git", "show", f"HEAD:{rel}"], cwd=root, capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        done = None
    if done is None or done.returncode != 0:
        raise UsageError(f"no original stub of {ex.id} here (looked for {saved} and for {rel} in git's HEAD): "
                         f"reset works in a bundle made by `grader export` or in a git checkout")
    return done.stdout


@dataclass(frozen=True)
class ResetResult:
    stub: Path
    backup: Path | None  # None when there was no file to keep (deleted) or it was the stub already


def backup_name(stub: Path, when: dt.datetime | None = None) -> Path:
    stamp = (when or dt.datetime.now(dt.UTC)).strftime("%Y%m%dT%H%M%SZ")
    path = stub.with_name(f"{stub.name}.{stamp}.bak")
    n = 2
    while path.exists():
        path, n = stub.with_name(f"{stub.name}.{stamp}-{n}.bak"), n + 1
    return path


def reset_exercise(root: Path, ex: Exercise) -> ResetResult:
    """Copy the candidate's file to a timestamped backup beside it (unless it is missing or is the
    stub already), then write the pristine stub in its place."""
    original = pristine_stub(root, ex)
    backup = None
    if ex.stub.is_file() and ex.stub.read_bytes() != original:
        backup = backup_name(ex.stub)
        try:
            shutil.copy2(ex.stub, backup)
        except OSError as exc:
            raise GraderError(f"could not back up {ex.stub} to {backup} ({exc}): nothing was reset") from None
    ex.stub.write_bytes(original)
    PracticeState(root).record_reset(ex.id)  # `grader list` and `grader watch`: not started again
    return ResetResult(stub=ex.stub, backup=backup)
