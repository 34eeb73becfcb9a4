"""Failure containment with real misbehaving submissions: each is contained with a message that
says what happened, every other exercise is graded, and a report is always written."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner

from grader.cli import cli
from grader.grading import grade
from grader.runtimes import template_pool
from grader.sandbox.client import GiB, Limits

BAD = Path(__file__).resolve().parents[1] / "data" / "misbehaving"

CASES = {
    "hang": "time limit 2 s exceeded while broadcast_bias.add_feature_bias()",
    "sleeper": "time limit 2 s exceeded while importing the submission",
    "exit0": "the worker exited with status 0 while importing the submission",
    "segv": "the worker was killed by SIGSEGV (segmentation fault) while broadcast_bias.add_feature_bias()",
    "memhog": "raised MemoryError: out of memory: the worker's memory limit is 1.0 GiB",
    "flood": "output limit exceeded: the worker wrote more than 4 MiB to stdout/stderr",
    "importerr": "importing broadcast_bias.py raised RuntimeError: boom at import",
    "syntax": "broadcast_bias.py has a syntax error at line 1: expected ':'",
    "nonutf8": "broadcast_bias.py is not valid UTF-8",
    "callexit": "broadcast_bias.add_feature_bias() raised SystemExit",
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_misbehaviour_is_contained_and_explained(case):
    run = grade([BAD / case], runtime="local", exercises=["05"], visibility="public", timeout_s=2,
                limits=Limits(memory_bytes=1 * GiB))
    (exercise,) = run.submissions[0].exercises
    assert exercise.score == 0 and exercise.max_score == 10
    first = exercise.checks[0]
    assert first.outcome == "failed"
    assert CASES[case] in first.message, first.message
    assert all(c.outcome == "failed" for c in exercise.checks)


def test_hung_exercise_does_not_stop_a_correct_one():
    run = grade([BAD / "hang_plus_correct"], runtime="local", exercises=["05", "10"], timeout_s=1)
    by_id = {e.id: e for e in run.submissions[0].exercises}
    assert by_id["10_autograd_basics"].score == by_id["10_autograd_basics"].max_score == 10
    hung = by_id["05_broadcast_bias"]
    assert hung.score < hung.max_score
    timed_out = [c for c in hung.checks if "time limit 1 s exceeded" in c.message]
    assert len(timed_out) >= 5


def test_report_is_written_for_a_misbehaving_submission(tmp_path):
    out = tmp_path / "r.json"
    result = CliRunner().invoke(cli, ["grade", str(BAD / "segv"), "--runtime", "local", "-e", "05", "--timeout-s", "2",
                                      "--json", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["score"] == 0 and report["max_score"] == 10
    assert any("SIGSEGV" in c["message"] for c in report["exercises"][0]["checks"])


def test_submitted_conftest_and_pytest_ini_are_never_loaded():
    marker = Path("/tmp/grader-conftest-was-loaded")
    if marker.exists():
        marker.unlink()
    run = grade([BAD / "conftest_attack"], runtime="local", exercises=["05"], visibility="public")
    assert not marker.exists(), "the submission's conftest.py was imported"
    assert run.submissions[0].score == 0  # the stub scores nothing, whatever its conftest says


def _processes_mentioning(marker: str) -> list[str]:
    """Command lines of the live processes whose command line or environment mention `marker`."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            env = Path(f"/proc/{pid}/environ").read_bytes()
        except OSError:
            continue  # gone, or another user's process: not one this test started
        if marker.encode() in cmd or marker.encode() in env:
            found.append(cmd.replace(b"\0", b" ").decode(errors="replace"))
    return found


def test_no_worker_is_left_running(tmp_path, monkeypatch):
    # Only the processes this test starts: their temporary folders (the judge's spec and cwd, the
    # fork server's and workers' TMPDIR) all lie under a folder unique to this test, so judges of
    # other gradings running on the machine at the same time are not mistaken for leftovers.
    own = tmp_path / f"own-{uuid.uuid4().hex}"
    own.mkdir()
    monkeypatch.setenv("TMPDIR", str(own))
    monkeypatch.setattr(tempfile, "tempdir", str(own))
    grade([BAD / "hang"], runtime="local", exercises=["05"], visibility="public", timeout_s=1)
    # the judge template stays for the next grading of this process (grader.runtimes.template_pool):
    # nothing else may, and it ends when told to
    leftovers = [c for c in _processes_mentioning(str(own)) if "grader.runtimes.template" not in c]
    assert not leftovers, leftovers
    template_pool.close_idle()
    assert not _processes_mentioning(str(own)), _processes_mentioning(str(own))


def test_leftover_detection_sees_a_process_of_this_test(tmp_path):
    """The scan above can fail: a process started under the marker is found while it lives."""
    own = tmp_path / f"own-{uuid.uuid4().hex}"
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)", str(own)])
    try:
        deadline = time.monotonic() + 10  # a loaded machine: the scan may run before the exec shows
        while not (found := [c for c in _processes_mentioning(str(own)) if str(own) in c]):
            if time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert found, f"process {proc.pid} (alive: {proc.poll() is None}) was not found by the scan"
    finally:
        proc.kill()
        proc.wait()
