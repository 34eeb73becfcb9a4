"""`grader watch`'s side of the warm judge: starting it, submitting one exercise's public checks,
cancelling, and turning its records into the `GradeRun` that `grader check` renders.

    judge = WarmJudge.start()
    run = RerunJob.build(catalog, ex)            # where the candidate's file is, the judge's spec
    judge.submit(run)  ...  event = judge.read_event()   # {"event": "done", ...}
    result = run.result(judge_error=None)        # a GradeRun, as `grader check` would have made
    judge.close()                                # nothing left running
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from grader import __version__
from grader.catalog import Catalog, Exercise
from grader.grading.assemble import build_exercise, environment
from grader.judge.timelimit import QUICK_KEY
from grader.notebooks.locate import materialize
from grader.results import GradeRun, SubmissionResult
from grader.runtimes.base import Candidate, JudgeJob, JudgeOutput, read_records
from grader.runtimes.local import MAX_LOG, judge_env
from grader.sandbox.limits import Limits
from grader.submissions import CandidateFile, locate

LABEL = "exercises"  # the submission's name, as `grader check` names the exercises folder
WARM_UPS = ("autograd", "optim")  # one server for every exercise of the session


class JudgeUnavailable(RuntimeError):
    """The warm judge stopped or could not start."""


class WarmJudge:
    """The warm judge process (grader.practice.server) and its event stream."""

    def __init__(self, proc: subprocess.Popen, scratch: str, log_path: Path):
        self.proc = proc
        self.scratch = scratch
        self.log_path = log_path
        self._buffer = b""
        self.ready = False
        self.busy = False

    @classmethod
    def start(cls) -> WarmJudge:
        scratch = tempfile.mkdtemp(prefix="grader-watch-")
        log_path = Path(scratch) / "server.log"
        with open(log_path, "wb") as log:
            proc = subprocess.Popen([sys.executable, "-m", "grader.practice.server", scratch, ",".join(WARM_UPS)],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, env=judge_env(),
                                    cwd=scratch, start_new_session=True)
        return cls(proc, scratch, log_path)

    def fileno(self) -> int:
        assert self.proc.stdout is not None
        return self.proc.stdout.fileno()

    def alive(self) -> bool:
        return self.proc.poll() is None

    def _send(self, request: dict) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(request).encode() + b"\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise JudgeUnavailable(self.why_stopped()) from None

    def submit(self, job: RerunJob) -> None:
        self._send({"op": "run", "spec": job.spec, "log": str(job.log_path)})
        self.busy = True

    def cancel(self) -> None:
        if self.busy:
            self._send({"op": "cancel"})

    def read_events(self) -> list[dict]:
        """The events that can be read now (call when fileno() is readable). Raises
        JudgeUnavailable when the server has stopped."""
        chunk = os.read(self.fileno(), 65536)
        if not chunk:
            raise JudgeUnavailable(self.why_stopped())
        self._buffer += chunk
        events = []
        while b"\n" in self._buffer:
            line, self._buffer = self._buffer.split(b"\n", 1)
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event.get("event") == "ready":
                self.ready = True
            elif event.get("event") in ("done", "cancelled"):
                self.busy = False
            events.append(event)
        return events

    def why_stopped(self) -> str:
        try:
            tail = self.log_path.read_bytes()[-1500:].decode(errors="replace").strip()
        except OSError:
            tail = ""
        try:
            status = self.proc.wait(timeout=2)  # its output closed: it is exiting
        except subprocess.TimeoutExpired:
            status = None
        return f"the warm judge stopped (status {status})" + (f": {tail}" if tail else "")

    def close(self) -> None:
        """End the server, its running check and its fork server with every worker: nothing is
        left running."""
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.close()  # EOF: the server cancels its run and closes its fork server
        except OSError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)  # the server's group: its run child, its fork server
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        shutil.rmtree(self.scratch, ignore_errors=True)


@dataclass
class RerunJob:
    """One rerun of an exercise's public checks on the candidate's file in the tree."""

    exercise: Exercise
    root: Path
    candidate: CandidateFile
    job: JudgeJob
    folder: Path
    spec: dict = field(default_factory=dict)
    why: str = ""  # what started it: "file saved", "rerun (r)"...
    started: float = field(default_factory=time.monotonic)

    @classmethod
    def build(cls, catalog: Catalog, ex: Exercise, timeout_s: float | None = None,
              limits: Limits | None = None, why: str = "") -> RerunJob:
        root = ex.dir.parent.parent.resolve()  # its exercises/ folder: the catalog's, or its pack's
        candidate = locate(root, [ex], explicit=True)[ex.id]
        folder = Path(tempfile.mkdtemp(prefix="grader-rerun-"))
        if candidate.notebook is not None:  # its code cells as a module (grader.notebooks)
            candidate = materialize({ex.id: candidate}, [ex], folder / "notebook")[ex.id]
        job = JudgeJob(root=catalog.root, exercises=[ex],
                       candidates=[Candidate(LABEL, {ex.id: candidate.to_spec()}, str(root))],
                       test_files=("test_public.py",), limits=limits or Limits(), timeout_s=timeout_s,
                       capture_output=True)
        run = cls(ex, root, candidate, job, folder, why=why)
        run.spec = job.spec(str(folder / "results.jsonl"), str(folder))
        if timeout_s is None:  # an endless loop stops in seconds, not at the exercise's full limit
            run.spec[QUICK_KEY] = True
        return run

    @property
    def log_path(self) -> Path:
        return self.folder / "judge.log"

    def result(self, error: str | None = None) -> GradeRun:
        """The GradeRun of this rerun, built as `grader check` builds it."""
        records = read_records(self.folder / "results.jsonl")
        try:
            log = self.log_path.read_bytes()[-MAX_LOG:].decode(errors="replace")
        except OSError:
            log = ""
        if error is None and not any(r.get("type") == "finished" for r in records):
            error = "the judge stopped before finishing"
        env = next((r for r in records if r.get("type") == "environment"), {})
        output = JudgeOutput(records=records, error=error, log=log,
                             notes=[r["message"] for r in records if r.get("type") == "note"],
                             protections=list(env.get("protections", [])))
        exercise = build_exercise(self.exercise, LABEL, self.root, self.candidate, output)
        return GradeRun(submissions=(SubmissionResult(name=LABEL, path=str(self.root), exercises=(exercise,)),),
                        environment=environment("local", output),
                        started_at=time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime()),
                        duration_s=time.monotonic() - self.started, tool_version=__version__)

    def discard(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)
