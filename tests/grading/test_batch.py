"""Batch grading on the local runtime with real judges: parallel equals serial, one judge per
submission, bad submissions reported, Ctrl-C leaves partial reports and nothing running, resume
grades only the rest; progress on a real pseudo-terminal and in plain lines. The GPU allocator is
unit-tested with made-up device ids (no GPU here): those tests say so in their names."""
from __future__ import annotations

import json
import os
import pty
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from benchmarks.batch_subs import make_submissions, strip_timings
from grader.errors import UsageError
from grader.grading import GradeOptions, grade_with
from grader.grading.options import default_jobs
from grader.resultstore import Graded, ResultStore, submission_from_dict
from grader.sandbox.limits import Limits

ROOT = Path(__file__).resolve().parents[2]
GRADER = [sys.executable, "-m", "grader"]
LIMITS = Limits(memory_bytes=1 << 30)


comparable = strip_timings

def local(paths, **batch) -> object:
    return grade_with(list(paths), GradeOptions(runtime="local", limits=LIMITS, **batch))


def ours(marker: str) -> list[str]:
    """Command lines of live processes that mention `marker` (a test's own temporary folder)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                cmd = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                state = Path(f"/proc/{entry}/stat").read_text().split(")")[-1].split()[0]
            except OSError:
                continue
            if marker in cmd and state != "Z":
                found.append(cmd)
    return found


def test_parallel_results_equal_serial_in_input_order(tmp_path):
    subs = make_submissions(tmp_path / "subs", 4)
    serial = local(subs, jobs=1)
    parallel = local(subs, jobs=2)
    assert [s.name for s in parallel.submissions] == ["sub000", "sub001", "sub002", "sub003"]
    assert comparable(parallel) == comparable(serial)
    assert [s.percent for s in serial.submissions][:2] == [100.0, 0.0]  # reference, stub
    assert len({s.percent for s in serial.submissions}) >= 3


def test_a_bad_submission_is_reported_and_the_batch_goes_on(tmp_path):
    good, = make_submissions(tmp_path / "subs", 1)
    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"PK\x03\x04 this is not a zip archive")
    empty = tmp_path / "empty"
    empty.mkdir()
    run = local([broken, good, empty], jobs=2)
    assert [s.name for s in run.submissions] == ["broken", "sub000", "empty"]
    assert run.submissions[0].error and "zip" in run.submissions[0].error.lower()
    assert run.submissions[2].error and "no exercise files" in run.submissions[2].error
    assert run.submissions[1].error is None and run.submissions[1].percent == 100.0


def test_a_judge_killed_from_outside_is_graded_again(tmp_path, monkeypatch):
    """One judge per submission: killing one submission's judge mid-run costs no other submission
    its verdicts, and that submission is graded again (infrastructure fault, retried once)."""
    subs = make_submissions(tmp_path / "subs", 2)
    # the judges' spec files, hence their command lines, name tmp_path
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    judges: set[int] = set()
    killed: list[str] = []

    def killer():
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not killed:
            for entry in os.listdir("/proc"):
                if not entry.isdigit():
                    continue
                try:
                    cmd = Path(f"/proc/{entry}/cmdline").read_bytes().decode(errors="replace")
                except OSError:
                    continue
                if "grader.judge" in cmd and str(tmp_path) in cmd:
                    judges.add(int(entry))
                    # at first sight: a judge forked from the judge template grades one 05
                    # submission in about a second, too soon over to wait for
                    os.kill(int(entry), signal.SIGKILL)
                    killed.append(cmd)
                    return
            time.sleep(0.1)

    thread = threading.Thread(target=killer)
    thread.start()
    try:
        run = local(subs, jobs=2)
    finally:
        thread.join()
    assert killed, "no judge was seen to kill"
    assert [s.error for s in run.submissions] == [None, None]
    assert [s.percent for s in run.submissions] == [100.0, 0.0]
    assert not ours(str(tmp_path))


def test_results_dir_round_trip_keeps_exact_scores(tmp_path):
    sub, = make_submissions(tmp_path / "subs", 1)
    run = local([sub], results_dir=tmp_path / "results")
    files = list((tmp_path / "results").glob("sub000.*.json"))
    assert len(files) == 1
    data = json.loads(files[0].read_text())
    back = submission_from_dict(data["submission"])
    assert back == run.submissions[0]
    store = ResultStore(tmp_path / "results")
    key = data["key"]
    assert isinstance(store.load("sub000", key), Graded)
    data["infrastructure"] = True  # an infrastructure error is graded again on resume
    files[0].write_text(json.dumps(data))
    assert store.load("sub000", key) is None


def _cli(args, tmp_path, **kw):
    env = {**os.environ, "TMPDIR": str(tmp_path), "NO_COLOR": "1"}
    return subprocess.Popen([*GRADER, "grade", *map(str, args)], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


@pytest.mark.slow
def test_sigint_mid_batch_writes_partial_reports_stops_everything_and_resume_completes(tmp_path):
    subs = make_submissions(tmp_path / "subs", 4)
    for sub in subs:  # a few seconds each (every check's worker imports it): time to interrupt one
        with open(sub / "tensors/05_broadcast_bias/broadcast_bias.py", "a") as fh:
            fh.write("\nimport time as _time\n_time.sleep(0.3)\n")
    results = tmp_path / "results"
    report = tmp_path / "report.json"
    args = [*subs, "--runtime", "local", "--jobs", "1", "--memory-gb", "1", "--results-dir", results,
            "--json", report, "-q"]
    proc = _cli(args, tmp_path)
    deadline = time.monotonic() + 240
    while not list(results.glob("sub*.json")) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert list(results.glob("sub*.json")), "no result was written in time"
    time.sleep(1.0)  # the next submission's judge is running now
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in err.lower()
    done = json.loads(report.read_text())["submissions"]
    assert 1 <= len(done) < 4
    assert len(list(results.glob("sub*.json"))) == len(done)
    time.sleep(0.5)
    assert not ours(str(tmp_path)), "a judge, fork server or worker outlived the interrupted grader"

    proc = _cli(args, tmp_path)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert f"resuming: {len(done)} of 4" in err
    assert len([line for line in err.splitlines() if line.startswith("[")]) == 4 - len(done)  # only the rest
    final = json.loads(report.read_text())["submissions"]
    assert [s["name"] for s in final] == ["sub000", "sub001", "sub002", "sub003"]
    assert [s["percent"] for s in final][:2] == [100.0, 0.0]

    # a changed submission is graded again, the others are not
    target = subs[1] / "tensors/05_broadcast_bias/broadcast_bias.py"
    target.write_text((ROOT / "solutions/tensors/05_broadcast_bias/broadcast_bias.py").read_text())
    proc = _cli(args, tmp_path)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert "resuming: 3 of 4" in err
    assert json.loads(report.read_text())["submissions"][1]["percent"] == 100.0


@pytest.mark.slow
def test_check_ctrl_c_exits_130_and_leaves_no_judge(tmp_path):
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    # a submission whose checks hang: the judge is still there when the poll below looks for it (the
    # reference's checks could end between two polls on a busy machine)
    hang = ROOT / "tests" / "data" / "misbehaving" / "hang"
    proc = subprocess.Popen([*GRADER, "check", "05", "--path", str(hang)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not any("grader.judge" in c for c in ours(str(tmp_path))) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert any("grader.judge" in c for c in ours(str(tmp_path))), "the judge never started"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Aborted!" not in err
    time.sleep(0.5)
    assert not ours(str(tmp_path))


def test_plain_progress_lines_when_stderr_is_not_a_terminal(tmp_path):
    subs = make_submissions(tmp_path / "subs", 2)
    proc = _cli([*subs, "--runtime", "local", "--memory-gb", "1", "--jobs", "2"], tmp_path)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    lines = [line for line in err.splitlines() if line.startswith("[")]
    assert sorted(lines[i].split("]")[0] for i in range(2)) == ["[1/2", "[2/2"]
    assert any("sub000: 10/10 (100 %)" in line for line in lines)
    assert "2/2 graded, 0 failed" in err
    assert "\x1b[" not in err


def test_live_progress_on_a_real_pseudo_terminal(tmp_path):
    subs = make_submissions(tmp_path / "subs", 2)
    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"} | {"TERM": "xterm", "COLUMNS": "160"}
    proc = subprocess.Popen([*GRADER, "grade", *map(str, subs), "--runtime", "local", "--memory-gb", "1"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 300)
        if not ready:
            break
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=60)
    os.close(master)
    text = b"".join(chunks).decode(errors="replace")
    assert proc.returncode == 0
    assert "\x1b[" in text  # redrawn in place
    assert "2/2" in text and "running" in text and "failed 0" in text and "ETA" in text
    assert "median 50 %" in text


def test_default_jobs_from_cpus_and_memory():
    assert default_jobs(4 << 30, cpus=8, available=24 << 30) == 4  # 24 GiB / (4 + 2 GiB)
    assert default_jobs(1 << 30, cpus=2, available=24 << 30) == 2
    assert default_jobs(8 << 30, cpus=8, available=4 << 30) == 1


def test_gpu_pool_allocator_unit_without_gpus_one_gpu_per_job_round_robin():
    from grader.gpus import GpuPool

    pool = GpuPool(["0", "1", "2"])
    a, b, c = pool.acquire(), pool.acquire(), pool.acquire()
    assert sorted(a + b + c) == ["0", "1", "2"]  # never two jobs on one GPU
    got = []
    waiter = threading.Thread(target=lambda: got.append(pool.acquire()))
    waiter.start()
    time.sleep(0.2)
    assert not got  # blocks while every GPU is held
    pool.release(b)
    waiter.join(5)
    assert got == [b]
    with pytest.raises(ValueError):
        pool.release(["7"])
    with pytest.raises(UsageError):
        pool.acquire(4)


def test_gpu_pool_allocator_unit_without_gpus_sharing_and_multi_gpu_jobs():
    from grader.gpus import pool_for

    pool, per_job = pool_for("ids", ("0", "1"), 0.5)
    assert per_job == 1
    held = [pool.acquire() for _ in range(4)]  # two jobs per GPU, spread evenly
    assert sorted(i for h in held for i in h) == ["0", "0", "1", "1"]
    pool, per_job = pool_for("ids", ("0", "1", "2", "3"), 2)
    assert per_job == 2 and pool.acquire(2) == ["0", "1"] and pool.acquire(2) == ["2", "3"]
    assert pool_for("all", (), 1, discover=lambda: []) == (None, 0)  # no GPU found: containers ask as before
    assert pool_for("none", (), 1) == (None, 0)
    with pytest.raises(UsageError):
        pool_for("ids", ("0",), 1.5)


def test_gpu_pinning_unit_with_a_fake_pool_exercises_without_gpu_hold_none(tmp_path):
    """A made-up pool of device ids (no GPU here): a job of GPU exercises is pinned to one device,
    a job whose exercises need no GPU asks for none and holds nothing."""
    from grader.catalog import Catalog
    from grader.gpus import GpuPool
    from grader.grading.executors import Threads
    from grader.grading.submission import Context

    class FakeDockerRuntime:  # only what Threads reads; the pinning under test is Threads'
        name = "local"

    catalog = Catalog.load()
    tb = Threads(Context(catalog, [], False, GradeOptions(limits=LIMITS, jobs=2)), FakeDockerRuntime())
    tb.pool, tb.per_job = GpuPool(["0", "1"]), 1
    gpu_ex = [ex for ex in catalog.exercises if ex.gpu in ("required", "optional")][:1]
    cpu_ex = [ex for ex in catalog.exercises if ex.gpu == "no"][:1]
    assert gpu_ex and cpu_ex
    with tb._gpu(gpu_ex) as first, tb._gpu(gpu_ex) as second:
        assert {first["gpus"].ids, second["gpus"].ids} == {("0",), ("1",)}
        with tb._gpu(cpu_ex) as none:
            assert none["gpus"].mode == "none"
        assert tb.pool.in_use() == {"0": 1, "1": 1}
    assert tb.pool.in_use() == {"0": 0, "1": 0}


def test_result_key_changes_with_content_exercise_files_and_settings(tmp_path):
    from grader.catalog import Catalog
    from grader.resultstore import result_key, settings_digest

    sub, = make_submissions(tmp_path / "subs", 1)
    catalog = Catalog.load()
    ex = catalog.select(["05"])
    base = settings_digest(ex, {"visibility": "all", "seed": 0})
    key = result_key("sub000", sub, base)
    assert result_key("sub000", sub, base) == key  # stable
    assert result_key("other", sub, base) != key
    assert result_key("sub000", sub, settings_digest(ex, {"visibility": "all", "seed": 1})) != key
    assert result_key("sub000", sub, settings_digest(catalog.select(["05", "10"]), {"visibility": "all",
                                                                                    "seed": 0})) != key
    (sub / "notes.txt").write_text("a new file")
    assert result_key("sub000", sub, base) != key
