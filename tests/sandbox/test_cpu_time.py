"""Time limits count CPU time read from outside the worker, so that no verdict moves with the
machine's load (issue 42): a busy loop is stopped by its CPU limit, a sleeper by the wall-clock
backstop (its failure), and a worker starved by the machine (here by a cgroup CPU quota of its
own) is not the candidate's failure: "not graded: machine overloaded". Real processes, a real
cgroup (cgroup v1's cpu controller, as root; the cgroup tests skip where it cannot be made)."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from grader.grading import grade
from grader.sandbox.client import Overloaded, Worker, WorkerFailure, backstop_s
from grader.sandbox.cputime import tree_cpu
from grader.sandbox.limits import Limits

ROOT = Path(__file__).resolve().parents[2]
CGROUP_CPU = Path("/sys/fs/cgroup/cpu")

SPIN = """
from __future__ import annotations
import time
from torch import Tensor


def add_feature_bias(x: Tensor, bias: Tensor) -> Tensor:
    {body}
    return x + bias


def add_sample_bias(x: Tensor, bias: Tensor) -> Tensor:
    return x + bias[:, None]


def pairwise_sq_dists(a: Tensor, b: Tensor) -> Tensor:
    return ((a * a).sum(1)[:, None] + (b * b).sum(1)[None, :] - 2 * a @ b.T).clamp_min(0)
"""


def _submission(tmp_path: Path, body: str) -> Path:
    folder = tmp_path / "sub"
    folder.mkdir()
    (folder / "broadcast_bias.py").write_text(SPIN.format(body=body))
    return folder


def _check(run, name: str) -> dict:
    (ex,) = run.submissions[0].exercises
    return next(c for c in ex.checks if c.name == name)


def test_tree_cpu_counts_every_thread_and_child():
    script = textwrap.dedent("""
        import os, threading, time
        def spin(seconds):
            end = time.thread_time() + seconds
            while time.thread_time() < end:
                pass
        done, hold = threading.Barrier(3), threading.Event()
        def work():
            spin(0.6)
            done.wait()
            hold.wait()  # alive: its time is its own, not only the process's
        threads = [threading.Thread(target=work, daemon=True) for _ in range(2)]
        for t in threads:
            t.start()
        child = os.fork()
        if child == 0:
            spin(0.4)
            os._exit(0)
        os.waitpid(child, 0)
        done.wait()
        print("done", flush=True)
        time.sleep(30)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "done"
        sample = tree_cpu(proc.pid)
        assert sample is not None
        # two threads of 0.6 s and a reaped child of 0.4 s: 1.6 s in all, the busiest thread 0.6 s
        assert sample.total_s >= 1.4, sample
        assert 0.5 <= sample.busiest_s < 1.0, sample
    finally:
        proc.kill()
        proc.wait()
    assert tree_cpu(proc.pid) is None


def test_a_busy_loop_is_stopped_by_its_cpu_limit(tmp_path):
    sub = _submission(tmp_path, "while True:\n        pass")
    run = grade([sub], exercises=["05"], timeout_s=2, runtime="local", pytest_args=["-k", "feature_bias_example"])
    check = _check(run, "test_feature_bias_example")
    assert check.outcome == "failed"
    assert "time limit 2 s exceeded while broadcast_bias.add_feature_bias()" in check.message
    assert "sleeping or blocked" not in check.message


def test_a_sleeper_fails_at_the_wall_clock_backstop(tmp_path):
    sub = _submission(tmp_path, "time.sleep(600)")
    run = grade([sub], exercises=["05"], timeout_s=1, runtime="local", pytest_args=["-k", "feature_bias_example"])
    check = _check(run, "test_feature_bias_example")
    assert check.outcome == "failed"
    assert "time limit 1 s exceeded while broadcast_bias.add_feature_bias()" in check.message
    assert "it was sleeping or blocked" in check.message
    assert check.duration_s >= backstop_s(1) - 0.5


def _wait_until_empty(group: Path) -> None:
    """Wait (up to 10 s) until the processes of cgroup `group` have left it."""
    for _ in range(100):
        if not (group / "cgroup.procs").read_text().split():
            return
        time.sleep(0.1)


@pytest.fixture
def starved_cgroup():
    """A cgroup of its own with a CPU quota of 1 % of a core: what a process moved there gets."""
    if not os.access(CGROUP_CPU, os.W_OK):
        pytest.skip("no writable cgroup v1 cpu controller here (needs root)")
    group = CGROUP_CPU / f"grader-test-starved-{uuid.uuid4().hex[:8]}"
    group.mkdir()
    try:
        (group / "cpu.cfs_period_us").write_text("100000")
        (group / "cpu.cfs_quota_us").write_text("1000")
        yield group
    finally:
        _wait_until_empty(group)  # its processes are killed by the test: wait for them to leave
        group.rmdir()


def test_a_worker_starved_by_the_machine_is_overloaded_not_failed(zygote, starved_cgroup, tmp_path):
    """The worker's process is put in a cgroup that gives it 1 % of a core: it spins, wanting the
    CPU, and gets almost none. At the backstop its threads have waited most of the time for a CPU:
    `Overloaded`, not a time-limit failure; a sleeping worker in the same group (its quota raised so
    that it can reach its sleep) is a failure."""
    subject = tmp_path / "subject.py"
    subject.write_text("import time\n\ndef spin(seconds):\n    end = time.process_time() + seconds\n"
                       "    while time.process_time() < end:\n        pass\n    return seconds\n\n"
                       "def sleep(seconds):\n    time.sleep(seconds)\n")
    from grader.sandbox.codec import Ref
    from grader.sandbox.handles import RemoteHandle

    def start() -> tuple[Worker, RemoteHandle]:
        worker = Worker(zygote, str(subject), "subject", Limits(), deadline=time.monotonic() + backstop_s(1),
                        time_limit=1)
        worker.start()
        (starved_cgroup / "cgroup.procs").write_text(str(worker._process()))
        return worker, RemoteHandle(worker, Ref(0, "module", "subject"), "subject")

    worker, module = start()
    with pytest.raises(Overloaded, match=r"the machine was overloaded: in \d+ s the worker ran [\d.]+ s and waited "
                                         r"\d+ s for a CPU"):
        module.spin(1.0)
    assert worker.pid is None  # killed
    # The sleeper must reach its sleep: at 1 % of a core, the quota the spinner overdrew (and the
    # spinner's own exit, throttled too) left it waiting seconds for the CPU to read its request (a
    # CI run on a loaded machine: "waited 4 s for a CPU", rightly overloaded). So the spinner is
    # gone from the group first, and the group gets 20 % of a core: a sleeper still waits for
    # nothing, and a sleeper is what this half is about.
    _wait_until_empty(starved_cgroup)
    (starved_cgroup / "cpu.cfs_quota_us").write_text("20000")
    worker, module = start()
    with pytest.raises(WorkerFailure, match="it was sleeping or blocked") as caught:
        module.sleep(600)
    assert not isinstance(caught.value, Overloaded)


SELF_CONTENDING = """import os, time

def storm(seconds):
    # 32 processes that sleep to the same 100 ms boundary and then all want the CPU at once: each
    # waits for the others, so the tree's threads spend far more time runnable than running,
    # while it uses an eighth of a core (no CPU limit is reached)
    kids = []
    for _ in range(32):
        pid = os.fork()
        if pid == 0:
            end = time.time() + seconds
            while time.time() < end:
                time.sleep(0.1 - time.time() % 0.1)
                spin = time.process_time() + 0.0004
                while time.process_time() < spin:
                    pass
            os._exit(0)
        kids.append(pid)
    for pid in kids:
        os.waitpid(pid, 0)
"""


def test_a_tree_that_waits_on_itself_is_not_overloaded(zygote, tmp_path, monkeypatch):
    """A submission cannot turn a check it fails into "not graded: machine overloaded" (left out of
    the total) by making its own processes wait for each other: at the backstop its threads have
    waited well over a quarter of the wall time, but the machine was idle besides (the machine's
    busy time is simulated as the tree's own: this suite shares the machine), so it is a time-limit
    failure. The same storm on a machine busy with others' work is Overloaded."""
    from grader.sandbox import client
    from grader.sandbox.codec import Ref
    from grader.sandbox.cputime import Machine
    from grader.sandbox.handles import RemoteHandle

    subject = tmp_path / "storm.py"
    subject.write_text(SELF_CONTENDING)

    def run(busy_others: float):
        worker = Worker(zygote, str(subject), "storm", Limits(), deadline=time.monotonic() + backstop_s(1),
                        time_limit=1)
        # the machine as this worker's tree alone would have kept it busy, plus `busy_others` cores
        monkeypatch.setattr(client, "machine", lambda pid: Machine(
            time.monotonic(), worker.cpu_used.total_s + busy_others * time.monotonic(), None, None))
        worker.start()
        try:
            RemoteHandle(worker, Ref(0, "module", "storm"), "storm").storm(600)
        finally:
            waited = worker.cpu_used.waiting_s
            worker.kill()
        return waited

    with pytest.raises(WorkerFailure, match="time limit 1 s exceeded") as caught:
        run(busy_others=0.0)
    assert not isinstance(caught.value, Overloaded)
    waited = float(re.search(r"its own processes waited ([\d.]+) s", str(caught.value)).group(1))
    assert waited >= 0.25 * backstop_s(1)  # the wait that used to make it "overloaded"
    with pytest.raises(Overloaded):
        run(busy_others=float(os.cpu_count() or 1))
