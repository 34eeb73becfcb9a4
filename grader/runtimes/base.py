"""The runtime interface: run the judge over a job, hand back its records."""

from __future__ import annotations

import json
import os
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from grader.catalog import Exercise
from grader.sandbox.limits import Limits


def thread_env(environ: dict[str, str] | None = None) -> dict[str, str]:
    """How torch's OpenMP threads wait, for the judge, its fork server and the workers (both
    runtimes): PASSIVE (asleep) unless the user chose a policy. By default an idle OpenMP thread
    spins for a while after each parallel region (libgomp's GOMP_SPINCOUNT); with a judge and a
    worker, or two of each under --jobs 2, sharing the cores, the spinning threads took the CPU the
    other processes were waiting for: grading the whole catalogue spent 28 % of the machine's CPU
    in libgomp's spin loops (perf, 2 cores), and PASSIVE made it 30 % faster. Results are the same:
    the same number of threads split the same work; only how an idle thread waits changes."""
    environ = os.environ if environ is None else environ
    return {"OMP_WAIT_POLICY": environ.get("OMP_WAIT_POLICY") or "PASSIVE"}


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
    pytest_args: list[str] = field(default_factory=list)  # selection only: -x, -k EXPR
    capture_output: bool = False  # keep what the candidate prints, per public check (check, watch)
    on_record: Callable[[dict], None] | None = None  # each judge record as it is written (local runtime)

    def spec(self, results_path: str, scratch_root: str | None = None,
             path_map=lambda p: p, grader_map=None) -> dict:
        """The JSON spec `python -m grader.judge` reads. `path_map` rewrites host paths (docker);
        `grader_map` (default: `path_map`) rewrites the catalog's root and exercise folders, which
        the docker runtime always takes from the image, never from a mounted submission."""
        grader_map = grader_map or path_map
        return {
            "root": grader_map(str(self.root)), "results_path": results_path, "scratch_root": scratch_root,
            "seed": self.seed, "timeout_s": self.timeout_s, "test_files": list(self.test_files),
            "pytest_args": list(self.pytest_args), "capture_output": self.capture_output,
            "limits": asdict(self.limits),
            "exercises": [{"id": ex.id, "dir": grader_map(str(ex.dir)), "name": ex.name,
                           "root": grader_map(str(ex.dir.parent.parent.parent)),  # its checkout or pack
                           "timeout_s": self.timeout_s or ex.timeout_s, "budget_s": ex.budget_s, "gpu": ex.gpu,
                           "network": ex.network, "limits": ex.limits}
                          for ex in self.exercises],
            "candidates": [{"label": c.label, "root": path_map(c.root) if c.root else None,
                            "files": {k: {**v, "path": path_map(v["path"]) if v.get("path") else None}
                                      for k, v in c.files.items()}}
                           for c in self.candidates],
        }

    def wall_limit(self) -> float:
        """A backstop for the whole judge: every exercise's budget for every candidate, and slack.
        Budgets count CPU time: the wall clock gets the checks' own backstop factor over them
        (`grader.sandbox.limits.backstop_s`), so that a loaded machine does not kill a judge that
        is within its budgets."""
        from grader.sandbox.limits import backstop_s  # not the client's module: it imports torch

        per_candidate = sum(ex.budget_s for ex in self.exercises)
        return 60.0 + backstop_s(per_candidate) * max(1, len(self.candidates))


@dataclass
class JudgeOutput:
    records: list[dict]
    error: str | None = None  # the judge itself failed (crash, wall-clock kill)
    log: str = ""  # may quote hidden checks: never put it in a report (`grading.keep_judge_log`)
    log_file: str | None = None  # where the log was kept for the interviewer, once written
    notes: list[str] = field(default_factory=list)
    protections: list[str] = field(default_factory=list)
    # the judge or its container was killed from outside (not by a limit or the candidate): grading
    # it again may well succeed (batch grading retries once, then reports an infrastructure error)
    infrastructure: bool = False


MAX_RECORD_LINE = 1 << 20  # the judge writes lines of at most 256 KiB (`judge.plugin.MAX_RECORD`)


class RecordTail:
    """Follows the judge's results file while it grows: `poll()` returns the records completed since
    the last call (a torn last line waits for its end)."""

    def __init__(self, path: Path):
        self.path, self.offset, self.partial = path, 0, b""

    def poll(self) -> list[dict]:
        try:
            with open(self.path, "rb") as fh:
                fh.seek(self.offset)
                data = fh.read(1 << 20)
        except OSError:
            return []
        self.offset += len(data)
        lines = (self.partial + data).split(b"\n")
        self.partial = lines.pop()
        return [record for line in lines if (record := _parse_record(line)) is not None]


def read_records(path: Path, max_bytes: int = 64 << 20) -> list[dict]:
    """Parse the judge's JSON lines, tolerating a torn last line (a judge killed mid-write). A line
    longer than MAX_RECORD_LINE is skipped on its own (its check is then "not graded"), never the
    lines after it; reading stops after `max_bytes` in all."""
    if not path.is_file():
        return []
    records = []
    total = 0
    with open(path, "rb") as fh:
        while total < max_bytes:
            line = fh.readline(MAX_RECORD_LINE + 1)
            if not line:
                break
            total += len(line)
            if len(line) > MAX_RECORD_LINE:
                while line and not line.endswith(b"\n"):  # skip the rest of the oversized line
                    line = fh.readline(MAX_RECORD_LINE)
                    total += len(line)
                continue
            if (record := _parse_record(line)) is not None:
                records.append(record)
    return records


def _parse_record(line: bytes) -> dict | None:
    """One judge record from one line, or None for a torn or foreign line."""
    try:
        record = json.loads(line)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


class Runtime(ABC):
    name: str = "?"

    @abstractmethod
    def run(self, job: JudgeJob) -> JudgeOutput:
        """Run the judge for `job` and return what it recorded. Never raises for candidate misbehaviour."""

    def close(self) -> None:  # noqa: B027 (a no-op unless the runtime keeps something running)
        """Grading with this runtime is over: end what it keeps for later runs (the local
        runtime's judge template). Runs after it start it again."""

    def expect_jobs(self, count: int) -> None:  # noqa: B027 (a no-op unless the runtime can prepare)
        """About `count` jobs will run (a batch, a split validation): a runtime may prepare once
        for all of them what each would otherwise prepare for itself."""

    def cancel(self) -> None:  # noqa: B027 (a no-op unless the runtime starts something)
        """Stop every judge (or container) this runtime is running, from any thread: their `run`
        calls return soon after, with an error. Used on Ctrl-C / SIGTERM."""
