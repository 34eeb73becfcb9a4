"""The local runtime's judge template (grader.runtimes.template): judges and their fork servers are
forked from one process that imported torch once, and each must be what a fresh
`python -m grader.judge` and `python -I -B -m grader.sandbox.zygote` would have been: the same
verdicts, the same environment in the worker, the same command lines, nothing left running."""
from __future__ import annotations

import os
import signal
import tempfile
import threading
import time
import uuid
from pathlib import Path

import pytest

from grader.catalog import Catalog
from grader.grading import grade
from grader.runtimes import template_pool
from grader.runtimes.base import Candidate, JudgeJob
from grader.runtimes.local import LocalRuntime
from grader.sandbox.limits import Limits

ROOT = Path(__file__).resolve().parents[2]
BAD = ROOT / "tests" / "data" / "misbehaving"
ATTACKS = ROOT / "tests" / "attacks" / "submissions"


def _cmd(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _ppid(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return 0


def _live(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
                env = Path(f"/proc/{entry}/environ").read_bytes()
            except (OSError, IndexError):
                continue
            if state != "Z" and (marker.encode() in _cmd(int(entry)) or marker.encode() in env):
                found.append(int(entry))
    return found


def _public_05_reference() -> JudgeJob:
    """A small job: exercise 05's reference, public checks only."""
    catalog = Catalog.load()
    ex = catalog.select(["05"])[0]
    return JudgeJob(root=catalog.root, exercises=[ex], test_files=("test_public.py",),
                    candidates=[Candidate("reference", {ex.id: {"path": str(ex.reference), "problem": None}})])


def _scores(run) -> list[tuple]:
    return [(s.name, [(e.id, e.score, e.max_score, [(c.name, c.outcome) for c in e.checks]) for e in s.exercises])
            for s in run.submissions]


def test_forked_and_fresh_judges_give_the_same_verdicts(monkeypatch):
    subs = [ROOT / "solutions", BAD / "segv", ROOT / "examples" / "sample_submission"]
    forked = grade(subs, runtime="local", exercises=["05", "10", "18"], timeout_s=5)
    monkeypatch.setenv("GRADER_JUDGE_TEMPLATE", "0")
    fresh = grade(subs, runtime="local", exercises=["05", "10", "18"], timeout_s=5)
    assert _scores(forked) == _scores(fresh)
    assert [s.percent for s in forked.submissions][:2] == [100.0, 0.0]
    assert 0 < forked.submissions[2].percent < 100.0


def test_the_worker_sees_the_scrubbed_environment_not_the_templates(monkeypatch):
    # snoop_secrets puts its os.environ and /proc/self/environ into its error messages
    monkeypatch.setenv("GRADER_TEST_SECRET", "s3cr3t-template")
    run = grade([ATTACKS / "snoop_secrets"], runtime="local", exercises=["05"], visibility="public", timeout_s=10)
    message = next(c.message for c in run.submissions[0].exercises[0].checks if "my environment" in (c.message or ""))
    raw = message.split("/proc/self/environ:", 1)[1]
    assert "PYTHONHASHSEED=0" in raw and "HOME=" in raw
    # the report shows the NULs between the variables as visible escapes (grader.results.safe_text)
    home = next(part for part in raw.replace("\\x00", " ").replace("\x00", " ").split() if part.startswith("HOME="))
    assert home != f"HOME={os.environ.get('HOME')}", raw  # the worker's HOME is its scratch folder
    assert "GRADER_TEMPLATE_ROOM" not in message and "VIRTUAL_ENV" not in raw and "s3cr3t" not in message


def test_judge_and_fork_server_read_as_what_they_are_and_die_with_the_template(tmp_path, monkeypatch):
    own = tmp_path / f"own-{uuid.uuid4().hex}"
    own.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(own))  # the judge's spec, hence its command line
    catalog = Catalog.load()
    ex = catalog.select(["05"])[0]
    job = JudgeJob(root=catalog.root, exercises=[ex], test_files=("test_public.py",), timeout_s=60,
                   limits=Limits(), candidates=[Candidate("hang", {ex.id: {
                       "path": str(BAD / "hang" / "broadcast_bias.py"),
                       "problem": None}})])
    runtime = LocalRuntime()
    out: list = []
    thread = threading.Thread(target=lambda: out.append(runtime.run(job)))
    thread.start()
    try:
        deadline = time.monotonic() + 60
        judge = server = None
        while time.monotonic() < deadline and server is None:
            for pid in _live(str(own)):
                if b"grader.judge\0" in _cmd(pid):
                    judge = pid
            if judge:
                server = next((p for p in _live("") if _ppid(p) == judge and b"grader.sandbox.zygote" in _cmd(p)),
                              None)
            time.sleep(0.05)
        assert judge and server, "no judge with a fork server showed up"
        template = _ppid(judge)
        assert b"grader.runtimes.template" in _cmd(template)
        assert [t.proc.pid for t in runtime._templates.values()] == [template]
        assert os.getpgid(server) == os.getpgid(judge) == judge  # one kill of the group ends both
        for pid in (template, judge):  # as in any Python: a write to a closed socket raises, never kills
            ignored = next(int(line.split()[1], 16) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                           if line.startswith("SigIgn:"))
            assert ignored & (1 << (signal.SIGPIPE - 1)), f"SIGPIPE is not ignored in {_cmd(pid)[:60]!r}"
        environ = Path(f"/proc/{server}/environ").read_bytes()
        assert b"GRADER_TEMPLATE_ROOM" not in environ and b"PYTORCH_NVML_BASED_CUDA_CHECK=1" in environ
        os.kill(template, signal.SIGKILL)  # the template goes: its judges, their fork servers too
        thread.join(timeout=60)
        assert not thread.is_alive()
        assert out and out[0].infrastructure, (out[0].error, [r.get("type") for r in out[0].records], out[0].log[-1500:])
        deadline = time.monotonic() + 5
        while _live(str(own)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _live(str(own))

        def gone(pid: int) -> bool:
            try:
                return b"Z" in Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")")[1][:3]
            except OSError:
                return True

        # each dies of its parent's death (PR_SET_PDEATHSIG), one after the other: a fork server
        # still tearing down its memory shows as running for a moment
        while not (gone(judge) and gone(server)) and time.monotonic() < deadline + 5:
            time.sleep(0.05)
        assert gone(judge) and gone(server)
    finally:
        runtime.cancel()
        thread.join(timeout=60)
        runtime.close()


def test_a_second_job_reuses_the_template_and_close_ends_it(monkeypatch):
    monkeypatch.setenv("GRADER_TEMPLATE_IDLE_S", "0")  # handed back, ended at once: as before the pool
    template_pool.close_idle()
    job = _public_05_reference()
    runtime = LocalRuntime()
    first = runtime.run(job)
    templates = [t.proc for t in runtime._templates.values()]
    state = next(iter(runtime._templates.values())).state
    # what every judge and fork server inherits: no CUDA initialised (a driver initialised before
    # fork fails in every child)
    assert state["ready"] is True and state["cuda_initialized"] is False, state
    second = runtime.run(job)
    assert [t.proc for t in runtime._templates.values()] == templates and len(templates) == 1
    passed = [[r["outcome"] for r in out.records if r.get("type") == "check"] for out in (first, second)]
    assert passed[0] == passed[1] and passed[0] and set(passed[0]) == {"passed"}, passed
    runtime.close()
    assert templates[0].poll() is not None, "close() left the template running"


def test_the_runtimes_of_a_process_share_a_template_until_it_idles(monkeypatch):
    # grade(), validate() and every batch make a runtime of their own: the second takes over the
    # first one's template (torch imported, warmed up) instead of starting another
    monkeypatch.setenv("GRADER_TEMPLATE_IDLE_S", "1")
    template_pool.close_idle()
    job = _public_05_reference()
    procs = []
    for _ in range(2):
        runtime = LocalRuntime()
        try:
            out = runtime.run(job)
            assert not out.error and {r["outcome"] for r in out.records if r.get("type") == "check"} == {"passed"}
            procs.append(next(iter(runtime._templates.values())).proc)
        finally:
            runtime.close()
    assert procs[0] is procs[1] and procs[0].poll() is None, "the second runtime started a template of its own"
    procs[0].wait(timeout=30)  # nobody holds it: ended once idle for GRADER_TEMPLATE_IDLE_S
    fresh = LocalRuntime()
    try:
        assert not fresh.run(job).error
        assert next(iter(fresh._templates.values())).proc is not procs[0]
    finally:
        fresh.close()
    assert template_pool.close_idle() == 1


def test_a_forked_child_leaves_its_parents_templates_alone(monkeypatch):
    monkeypatch.setenv("GRADER_TEMPLATE_IDLE_S", "60")
    template_pool.close_idle()
    runtime = LocalRuntime()
    runtime.run(_public_05_reference())
    template = next(iter(runtime._templates.values()))
    pid = os.fork()
    if pid == 0:  # the child closes what it inherited: nothing of the parent's may end
        code = 1
        try:
            runtime.close()
            code = 0 if not template_pool._POOL else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert template.proc.poll() is None and template.ctrl is not None
    runtime.close()
    assert template_pool.close_idle() == 1 and template.proc.poll() is not None


@pytest.mark.parametrize("value", ["0"])
def test_the_template_can_be_turned_off(monkeypatch, value):
    monkeypatch.setenv("GRADER_JUDGE_TEMPLATE", value)
    job = _public_05_reference()
    runtime = LocalRuntime()
    try:
        out = runtime.run(job)
        assert not runtime._templates and not out.error
    finally:
        runtime.close()


def test_a_killed_template_is_replaced_for_the_next_job():
    job = _public_05_reference()
    runtime = LocalRuntime()
    try:
        runtime.run(job)
        first = next(iter(runtime._templates.values())).proc
        os.kill(first.pid, signal.SIGKILL)  # a worker without Landlock's signal scoping could
        first.wait()
        out = runtime.run(job)
        second = next(iter(runtime._templates.values())).proc
        assert second.pid != first.pid and second.poll() is None
        assert not out.error and {r["outcome"] for r in out.records if r.get("type") == "check"} == {"passed"}
    finally:
        runtime.close()


def _huge_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("AnonHugePages:"):
            return int(line.split()[1])
    return 0


@pytest.mark.skipif(not Path("/proc/self/smaps_rollup").exists() or "[never]" in (
    Path("/sys/kernel/mm/transparent_hugepage/enabled").read_text()
    if Path("/sys/kernel/mm/transparent_hugepage/enabled").exists() else "[never]"),
    reason="no transparent huge pages here")
def test_a_template_told_of_several_jobs_prepares_before_the_first(monkeypatch):
    # A lone job's template does nothing for later ones (its judge would wait for it); told that
    # several follow (a batch, a split validation), it collapses its memory (and warms up) before
    # the first judge, which every judge of the batch then inherits instead of redoing
    monkeypatch.setenv("GRADER_TEMPLATE_IDLE_S", "0")  # a template of its own for each runtime
    template_pool.close_idle()
    job = _public_05_reference()
    huge = {}
    for many in (False, True):
        runtime = LocalRuntime()
        try:
            runtime.expect_jobs(2 if many else 1)
            out = runtime.run(job)
            assert not out.error and {r["outcome"] for r in out.records if r.get("type") == "check"} == {"passed"}
            huge[many] = _huge_kb(next(iter(runtime._templates.values())).proc.pid)
        finally:
            runtime.close()
    assert huge[False] == 0, f"a lone job's template collapsed {huge[False]} kB (its judge waited for it)"
    assert huge[True] > 50_000, f"the template of a batch collapsed only {huge[True]} kB before its first judge"
