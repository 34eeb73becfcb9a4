"""The practice state of an exercise tree, and the opt-in progress record.

- `.grader/state.json` (not committed; `grader watch` and `grader check` update it): per exercise,
  its last public result and how many hints were shown. `grader list` shows it.
- `.grader/bundle.toml` (written by `grader export`): whether the bundle records progress, and the
  kinds of each exercise's hidden checks (kinds only, for the completion message).
- `exercises/.grader-progress.jsonl`: only in a bundle exported with `--record-progress`; one line
  per public run or hint (time, exercise, public score, hints used). It sits in the exercises
  folder, so it is submitted with the candidate's files; it is written on the candidate's machine
  and nothing verifies it. Written here (`log_progress`); read by grading (`grader.progress_record`).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

from grader.progress_record import PROGRESS_FILE
from grader.results import GradeRun

STATE_DIR = ".grader"
STATE_FILE = "state.json"
BUNDLE_FILE = "bundle.toml"


def _now() -> str:
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()


@dataclass(frozen=True)
class ExerciseState:
    passed: int = 0
    total: int = 0
    hints: int = 0
    checked_at: str | None = None

    @property
    def status(self) -> str:
        """not started | failing | passing (its public checks)."""
        if self.checked_at is None or not self.total:
            return "not started"
        return "passing" if self.passed == self.total else "failing"


class PracticeState:
    """The state file of one exercise tree. Reads tolerate a missing or corrupt file (it is the
    candidate's); writes replace it atomically."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.path = self.root / STATE_DIR / STATE_FILE

    def load(self) -> dict[str, ExerciseState]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            entries = data.get("exercises", {}) if isinstance(data, dict) else {}
        except (OSError, ValueError):
            return {}
        states = {}
        for ex_id, entry in entries.items():
            if isinstance(entry, dict):
                try:
                    states[ex_id] = ExerciseState(int(entry.get("passed", 0)), int(entry.get("total", 0)),
                                                  int(entry.get("hints", 0)), entry.get("checked_at"))
                except (TypeError, ValueError):
                    continue
        return states

    def get(self, ex_id: str) -> ExerciseState:
        return self.load().get(ex_id, ExerciseState())

    def _save(self, states: dict[str, ExerciseState]) -> None:
        data = {"version": 1, "exercises": {k: v.__dict__ for k, v in sorted(states.items())}}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".state-", dir=self.path.parent)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(data, fh, indent=1)
            os.replace(tmp, self.path)
        except OSError:
            pass  # a read-only tree: practice state is a convenience, never a reason to fail

    def record_result(self, ex_id: str, passed: int, total: int) -> ExerciseState:
        states = self.load()
        old = states.get(ex_id, ExerciseState())
        states[ex_id] = new = ExerciseState(passed, total, old.hints, _now())
        self._save(states)
        log_progress(self.root, ex_id, "check", passed, total, new.hints)
        return new

    def record_reset(self, ex_id: str) -> None:
        """The exercise's stub was put back (`grader reset`): not started again, hints seen kept."""
        states = self.load()
        old = states.get(ex_id)
        if old is not None and old.checked_at is not None:
            states[ex_id] = ExerciseState(hints=old.hints)
            self._save(states)

    def record_hint(self, ex_id: str, shown: int) -> ExerciseState:
        states = self.load()
        old = states.get(ex_id, ExerciseState())
        states[ex_id] = new = ExerciseState(old.passed, old.total, max(old.hints, shown), old.checked_at)
        self._save(states)
        log_progress(self.root, ex_id, "hint", old.passed, old.total, new.hints)
        return new


def public_counts(run: GradeRun, ex_id: str) -> tuple[int, int] | None:
    """(passed, counted) public checks of `ex_id` in `run` (not_run checks left out), or None."""
    for sub in run.submissions:
        for ex in sub.exercises:
            if ex.id == ex_id:
                counted = [c for c in ex.checks if c.outcome != "not_run"]
                return sum(c.outcome == "passed" for c in counted), len(counted)
    return None


def record_run(root: Path, run: GradeRun) -> None:
    """Record every exercise of a public run (`grader check` on the tree's own files)."""
    state = PracticeState(root)
    for sub in run.submissions:
        for ex in sub.exercises:
            counts = public_counts(run, ex.id)
            if counts and ex.file is not None:
                state.record_result(ex.id, *counts)


# --- the bundle's settings and the progress record ----------------------------------------------

def bundle_settings(root: Path) -> dict:
    """`.grader/bundle.toml` of a bundle ({} in a checkout or when unreadable)."""
    try:
        return tomllib.loads((Path(root) / STATE_DIR / BUNDLE_FILE).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return {}


def records_progress(root: Path) -> bool:
    return bundle_settings(root).get("record_progress") is True


def hidden_kinds(root: Path, ex_id: str) -> list[str]:
    """The kinds of an exercise's hidden checks, as the export listed them ([] when unknown)."""
    kinds = bundle_settings(root).get("hidden_kinds", {}).get(ex_id, [])
    return [k for k in kinds if isinstance(k, str)]


def progress_path(root: Path) -> Path:
    return Path(root) / "exercises" / PROGRESS_FILE


def log_progress(root: Path, ex_id: str, event: str, passed: int, total: int, hints: int) -> None:
    """Append one line to the progress record, in a bundle exported with --record-progress only."""
    if not records_progress(root):
        return
    line = {"time": _now(), "exercise": ex_id, "event": event, "passed": passed, "total": total, "hints": hints}
    try:
        with open(progress_path(root), "a", encoding="utf-8") as fh:
            fh.write(json.dumps(line) + "\n")
    except OSError:
        pass
