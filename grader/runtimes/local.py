"""The local runtime: the judge and its workers are subprocesses on this machine.

It contains crashes and cannot be fooled into a forged score (verdicts stay in the judge), but it
does not hide files from the worker: use it for one's own code and for trusted grading.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from grader.runtimes.base import JudgeJob, JudgeOutput, Runtime, read_records

MAX_LOG = 20000


def judge_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


class LocalRuntime(Runtime):
    name = "local"

    def __init__(self, python: str | None = None):
        self.python = python or sys.executable

    def run(self, job: JudgeJob) -> JudgeOutput:
        with tempfile.TemporaryDirectory(prefix="grader-local-") as tmp:
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
            return JudgeOutput(records=records, error=error, log=log_text,
                               protections=["worker process per check", "time limits", "memory watchdog",
                                            "rlimits (file size, data)", "scrubbed environment"])
