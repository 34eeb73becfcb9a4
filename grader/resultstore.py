"""`--results-dir`: one JSON file per graded submission, written atomically as soon as it is graded,
so an interrupted batch (Ctrl-C, SIGTERM, a crash of the grader) resumes where it stopped.

A file is keyed by a content hash of the submission (every file's path and bytes), its label, the
exercise set (ids and the exercises' own files), the grading settings (visibility, limits, seed,
timeout) and the grader version (plus the grading image's id in Docker): change any of them and the
submission is graded again. A result that ended in an infrastructure error (a judge or container
killed from outside) is kept for the report but graded again on the next run.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from grader import __version__
from grader.catalog import Exercise
from grader.errors import UsageError
from grader.results import CheckResult, ExerciseResult, Flag, SubmissionResult

STORE_VERSION = 1


@dataclass
class Graded:
    """One submission's result with what the batch report needs from its judge."""

    submission: SubmissionResult
    environment: dict[str, Any] = field(default_factory=dict)  # torch, cuda, gpus, protections, notes
    infrastructure: bool = False  # failed twice for reasons outside the candidate's code
    duration_s: float = 0.0
    resumed: bool = False  # read back from --results-dir, not graded in this run

    def to_dict(self, key: str) -> dict[str, Any]:
        return {"store_version": STORE_VERSION, "key": key, "tool_version": __version__,
                "infrastructure": self.infrastructure, "duration_s": round(self.duration_s, 3),
                "environment": self.environment, "submission": asdict(self.submission)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Graded:
        return cls(submission=submission_from_dict(data["submission"]), environment=data.get("environment", {}),
                   infrastructure=bool(data.get("infrastructure")), duration_s=data.get("duration_s", 0.0),
                   resumed=True)


def submission_from_dict(data: dict[str, Any]) -> SubmissionResult:
    """The inverse of `dataclasses.asdict(SubmissionResult)` (floats kept exact: JSON round-trips them)."""
    exercises = tuple(
        ExerciseResult(**{**ex, "checks": tuple(CheckResult(**c) for c in ex["checks"]),
                          "flags": tuple(Flag(**f) for f in ex["flags"])})
        for ex in data["exercises"])
    return SubmissionResult(name=data["name"], path=data["path"], exercises=exercises, error=data.get("error"))


def _hash_tree(h, root: Path) -> None:
    if root.is_file():
        h.update(b"F" + root.read_bytes())
        return
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            path = Path(dirpath) / name
            rel = path.relative_to(root).as_posix().encode()
            h.update(b"P" + rel + b"\0")
            if path.is_symlink():
                h.update(b"L" + os.readlink(path).encode() + b"\0")
            else:
                try:
                    h.update(b"F" + hashlib.sha256(path.read_bytes()).digest())
                except OSError as exc:  # unreadable: hash the error, grading will report it
                    h.update(b"E" + str(exc).encode())


def submission_digest(path: Path) -> str:
    """A hash of what a submission holds (a folder's files, or an archive's or file's bytes)."""
    h = hashlib.sha256()
    try:
        _hash_tree(h, Path(path))
    except OSError as exc:
        h.update(b"E" + str(exc).encode())
    return h.hexdigest()


def settings_digest(exercises: list[Exercise], settings: dict[str, Any]) -> str:
    """A hash of the exercise set (ids and files) and the grading settings, computed once a batch."""
    h = hashlib.sha256(json.dumps({"grader": __version__, "store": STORE_VERSION, **settings},
                                  sort_keys=True, default=str).encode())
    for ex in sorted(exercises, key=lambda e: e.id):
        h.update(b"X" + ex.id.encode() + b"\0")
        _hash_tree(h, ex.dir)
    return h.hexdigest()


def result_key(label: str, path: Path, settings: str) -> str:
    h = hashlib.sha256(f"{label}\0{settings}\0".encode())
    h.update(submission_digest(path).encode())
    return h.hexdigest()[:32]


class ResultStore:
    """A folder of `<label>.<key>.json` files. `load` finds a result by key; `save` replaces it
    atomically (write to a temporary file in the folder, fsync, rename)."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"--results-dir {folder}: cannot create it ({exc.strerror})") from None
        if not os.access(self.folder, os.W_OK):
            raise UsageError(f"--results-dir {folder}: not writable")

    def path(self, label: str, key: str) -> Path:
        safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in label)[:80] or "submission"
        return self.folder / f"{safe}.{key}.json"

    def load(self, label: str, key: str) -> Graded | None:
        """The stored result, or None when missing, unreadable, of another key, or an
        infrastructure error (to be graded again)."""
        file = self.path(label, key)
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
            if data.get("key") != key or data.get("store_version") != STORE_VERSION or data.get("infrastructure"):
                return None
            return Graded.from_dict(data)
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def save(self, label: str, key: str, graded: Graded) -> Path:
        file = self.path(label, key)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=self.folder)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(graded.to_dict(key), fh, sort_keys=True)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, file)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        for old in self.folder.glob(f"{file.name.rsplit('.', 2)[0]}.*.json"):  # older versions of it
            if old != file and len(old.name.split(".")) == len(file.name.split(".")):
                old.unlink(missing_ok=True)
        return file
