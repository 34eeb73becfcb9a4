"""The runtime interface: run the judge over a job, hand back its records."""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass, field
from pathlib import Path

from grader.catalog import Exercise
from grader.sandbox.limits import Limits


@dataclass
class Candidate:
    """One set of candidate files graded together (a submission, or a reference/stub/mistake)."""

    label: str
    files: dict[str, dict]  # exercise id -> {"path": str | None, "problem": str | None}
    root: str | None = None  # the submission's folder (or single file): what the docker runtime mounts


@dataclass
class JudgeJob:
    root: Path
    exercises: list[Exercise]
    candidates: list[Candidate]
    test_files: tuple[str, ...] = ("test_public.py", "test_hidden.py")
    limits: Limits = field(default_factory=Limits)
    timeout_s: float | None = None  # overrides every check's limit when set
    seed: int = 0

    def spec(self, results_path: str, scratch_root: str | None = None,
             path_map=lambda p: p) -> dict:
        """The JSON spec `python -m grader.judge` reads. `path_map` rewrites host paths (docker)."""
        return {
            "root": path_map(str(self.root)), "results_path": results_path, "scratch_root": scratch_root,
            "seed": self.seed, "timeout_s": self.timeout_s, "test_files": list(self.test_files),
            "limits": asdict(self.limits),
            "exercises": [{"id": ex.id, "dir": path_map(str(ex.dir)), "name": ex.name,
                           "timeout_s": self.timeout_s or ex.timeout_s, "budget_s": ex.budget_s, "gpu": ex.gpu,
                           "network": ex.network, "limits": ex.limits}
                          for ex in self.exercises],
            "candidates": [{"label": c.label, "root": path_map(c.root) if c.root else None,
                            "files": {k: {**v, "path": path_map(v["path"]) if v.get("path") else None}
                                      for k, v in c.files.items()}}
                           for c in self.candidates],
        }

    def wall_limit(self) -> float:
        """A backstop for the whole judge: every exercise's budget for every candidate, and slack."""
        per_candidate = sum(ex.budget_s for ex in self.exercises)
        return 60.0 + per_candidate * max(1, len(self.candidates))


@dataclass
class JudgeOutput:
    records: list[dict]
    error: str | None = None  # the judge itself failed (crash, wall-clock kill)
    log: str = ""
    notes: list[str] = field(default_factory=list)
    protections: list[str] = field(default_factory=list)


def read_records(path: Path, max_bytes: int = 64 << 20) -> list[dict]:
    """Parse the judge's JSON lines, tolerating a torn last line (a judge killed mid-write)."""
    if not path.is_file():
        return []
    records = []
    with open(path, "rb") as fh:
        data = fh.read(max_bytes)
    for line in data.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            records.append(record)
    return records


class Runtime(ABC):
    name: str = "?"

    @abstractmethod
    def run(self, job: JudgeJob) -> JudgeOutput:
        """Run the judge for `job` and return what it recorded. Never raises for candidate misbehaviour."""
