"""The local runtime: the judge and its workers are subprocesses on this machine.

It contains crashes and cannot be fooled into a forged score (verdicts stay in the judge), but it
does not hide files from the worker: use it for one's own code and for trusted grading.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from grader.runtimes.base import JudgeJob, JudgeOutput, Runtime, read_records
from grader.sandbox.cleanup import remove_tree

MAX_LOG = 20000


KEPT_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "CUDA_VISIBLE_DEVICES", "CUBLAS_WORKSPACE_CONFIG",
            "OMP_NUM_THREADS", "MKL_NUM_THREADS", "GRADER_ROOT", "GRADER_LANDLOCK", "GRADER_NAMESPACES", "VIRTUAL_ENV", "SYSTEMROOT")


def judge_env() -> dict[str, str]:
    """The judge gets only what it needs: no tokens or secrets of the user's environment can reach
    a report or a worker (which gets a further scrubbed copy)."""
    env = {k: v for k, v in os.environ.items() if k in KEPT_ENV}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


@contextlib.contextmanager
def _removed(folder: str):
    """Remove `folder` on the way out, whatever workers left in it (a 3000-level folder chain
    defeats shutil.rmtree); a cleanup that fails is said on stderr, never raised: the report comes
    first."""
    try:
        yield
    finally:
        left = remove_tree(folder)
        if left:
            print(f"warning: {left}", file=sys.stderr)


class LocalRuntime(Runtime):
    name = "local"

    def __init__(self, python: str | None = None):
        self.python = python or sys.executable

    def run(self, job: JudgeJob) -> JudgeOutput:
        with tempfile.TemporaryDirectory(prefix="grader-local-", ignore_cleanup_errors=True) as tmp, _removed(tmp):
            results = Path(tmp) / "results.jsonl"
            scratch = Path(tmp) / "scratch"
            scratch.mkdir()
            spec_path = Path(tmp) / "spec.json"
            spec_path.write_text(json.dumps(job.spec(str(results), str(scratch))))
            log_path = Path(tmp) / "judge.log"
            error = None
            with open(log_path, "wb") as log:
                proc = subprocess.Popen([self.python, "-m", "grader.judge", str(spec_path)], stdout=log,
                                        stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=judge_env(),
                                        cwd=tmp, start_new_session=True)
                try:
                    code = proc.wait(timeout=job.wall_limit())
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, 9)
                    proc.wait()
                    code = None
                    error = f"the judge ran past its wall-clock limit of {job.wall_limit():g} s and was killed"
            log_text = log_path.read_bytes()[-MAX_LOG:].decode(errors="replace")
            records = read_records(results)
            if error is None and code not in (0, 1) and not any(r.get("type") == "finished" for r in records):
                error = f"the judge exited with status {code} before finishing"
            elif error is None and code not in (0, 1, 5):
                error = f"the judge exited with status {code}"
            env = next((r for r in records if r.get("type") == "environment"), {})
            notes = [r["message"] for r in records if r.get("type") == "note"]
            return JudgeOutput(records=records, error=error, log=log_text, notes=notes,
                               protections=list(env.get("protections", [])))
