"""The machine's shared judge template (grader.runtimes.template_shared), as a Ray node's workers use
it: separate grading processes fork their judges from one template, which outlives them until it
idles; a grader that goes takes its judges with it and nobody else's; a dead template's socket is
replaced; a folder that is not the user's alone is refused; a worker cannot reach the socket.
Everything runs in real processes; each test keeps its templates in a folder of its own
(GRADER_TEMPLATE_DIR) and ends what it started."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grader.runtimes.template import TemplateUnavailable
from grader.runtimes.template_shared import SharedTemplate, template_dir

ROOT = Path(__file__).resolve().parents[2]
BAD = ROOT / "tests" / "data" / "misbehaving"

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="Linux only")

# One grading process: grades a submission's exercise 05 (public checks) on a local runtime that
# uses the shared template, and prints the pid of its judge's parent (the template) and the outcomes.
GRADE = """
import json, os, sys
from grader.catalog import Catalog
from grader.runtimes.base import Candidate, JudgeJob
from grader.runtimes.local import LocalRuntime
catalog = Catalog.load()
ex = catalog.select(["05"])[0]
job = JudgeJob(root=catalog.root, exercises=[ex], test_files=("test_public.py",), timeout_s=float(sys.argv[2]),
               candidates=[Candidate("c", {ex.id: {"path": sys.argv[1], "problem": None}})])
runtime = LocalRuntime(shared_templates=True)
template = []
real = runtime._template
def spy(env):
    t = real(env)
    template.append(t)
    return t
runtime._template = spy
out = runtime.run(job)
runtime.close()
print(json.dumps({"template": template[0].state.get("pid") if template else None, "error": out.error,
                  "outcomes": [r["outcome"] for r in out.records if r.get("type") == "check"],
                  "notes": out.notes}), flush=True)
"""


def _env(folder: Path, idle: str = "30") -> dict[str, str]:
    return {**os.environ, "GRADER_TEMPLATE_DIR": str(folder), "GRADER_TEMPLATE_IDLE_S": idle,
            "PYTHONPATH": str(ROOT)}


def _grade(folder: Path, submission: Path, idle: str = "30", timeout_s: float = 20) -> dict:
    out = subprocess.run([sys.executable, "-c", GRADE, str(submission), str(timeout_s)], env=_env(folder, idle),
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _templates(folder: Path) -> list[int]:
    """Live shared templates listening in `folder` (their command lines name its socket)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmd = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if b"grader.runtimes.template" in cmd and str(folder).encode() in cmd and _alive(int(entry)):
                found.append(int(entry))
    return found


def _kill_all(folder: Path) -> None:
    for pid in _templates(folder):
        os.kill(pid, signal.SIGKILL)


REFERENCE = ROOT / "solutions" / "tensors" / "05_broadcast_bias" / "broadcast_bias.py"


def test_two_graders_share_one_template_that_ends_once_idle(tmp_path):
    folder = tmp_path / "templates"
    try:
        first = _grade(folder, REFERENCE, idle="3")
        second = _grade(folder, REFERENCE, idle="3")
        assert first["outcomes"] and set(first["outcomes"]) == {"passed"} and not first["error"], first
        assert second["outcomes"] == first["outcomes"] and not second["error"], second
        assert first["template"] == second["template"], "the second grader started a template of its own"
        assert _templates(folder) == [first["template"]]  # it outlived both graders
        deadline = time.monotonic() + 30
        while _alive(first["template"]) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _alive(first["template"]), "the shared template did not end once idle"
        assert not list(folder.glob("*.sock")), "the idle template left its socket"
    finally:
        _kill_all(folder)


def test_a_grader_that_goes_takes_its_judges_and_no_others(tmp_path):
    folder = tmp_path / "templates"
    try:
        env = _env(folder)
        hang = subprocess.Popen([sys.executable, "-c", GRADE, str(BAD / "hang" / "broadcast_bias.py"), "120"],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
        deadline = time.monotonic() + 120
        judges: list[int] = []
        while not judges and time.monotonic() < deadline:
            for template in _templates(folder):
                judges = [int(p) for p in Path(f"/proc/{template}/task/{template}/children").read_text().split()]
            time.sleep(0.1)
        assert judges, "no judge was forked from the shared template"
        template = _templates(folder)[0]
        hang.kill()  # the grader is killed (a Ray worker lost): its judge must not run on
        hang.wait()
        deadline = time.monotonic() + 10
        while any(_alive(j) for j in judges) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(j) for j in judges), "the judge of a grader that went is still running"
        again = _grade(folder, REFERENCE)
        assert again["template"] == template and set(again["outcomes"]) == {"passed"}, again
    finally:
        _kill_all(folder)


def test_a_dead_templates_socket_is_replaced(tmp_path):
    folder = tmp_path / "templates"
    try:
        first = _grade(folder, REFERENCE)
        os.kill(first["template"], signal.SIGKILL)  # its socket file stays behind, refusing
        assert list(folder.glob("*.sock"))
        second = _grade(folder, REFERENCE)
        assert second["template"] != first["template"] and set(second["outcomes"]) == {"passed"}, second
    finally:
        _kill_all(folder)


def test_a_folder_that_is_not_the_users_alone_is_refused(tmp_path, monkeypatch):
    folder = tmp_path / "open"
    folder.mkdir(mode=0o777)
    folder.chmod(0o777)
    monkeypatch.setenv("GRADER_TEMPLATE_DIR", str(folder))
    with pytest.raises(TemplateUnavailable, match="0700"):
        template_dir()
    with pytest.raises(TemplateUnavailable, match="0700"):
        SharedTemplate(sys.executable, {})
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (tmp_path / "elsewhere").mkdir(mode=0o700)
    monkeypatch.setenv("GRADER_TEMPLATE_DIR", str(link))
    with pytest.raises(TemplateUnavailable, match="0700"):
        template_dir()
    # nor under a folder others may rename in (they could swap the folder after the checks)
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv("GRADER_TEMPLATE_DIR", str(shared / "templates"))
    with pytest.raises(TemplateUnavailable, match="writable by other users"):
        template_dir()
    # nor further up: whoever may rename a folder above it may swap the whole branch
    monkeypatch.setenv("GRADER_TEMPLATE_DIR", str(shared / "mine" / "templates"))
    (shared / "mine").mkdir(mode=0o700)
    with pytest.raises(TemplateUnavailable, match=f"{shared} is writable by other users"):
        template_dir()
    shared.chmod(0o1777)  # sticky, as /tmp: others cannot rename what is ours
    assert template_dir() == shared / "mine" / "templates"
    monkeypatch.setenv("GRADER_TEMPLATE_DIR", str(shared / "templates"))
    assert template_dir() == shared / "templates"
    # nor inside what a worker's mount namespace shows it again (checked before anything is made)
    for inside in (Path(sys.prefix) / "no-such-templates", ROOT / "no-such-templates"):
        monkeypatch.setenv("GRADER_TEMPLATE_DIR", str(inside))
        with pytest.raises(TemplateUnavailable, match="every worker can read"):
            template_dir()
        assert not inside.exists()
    # the grading process starts its judges as fresh interpreters: still graded, and the report
    # says why (on a Ray node the grading process's stderr reaches only the worker's log)
    result = _grade(folder, REFERENCE)
    assert set(result["outcomes"]) == {"passed"} and result["template"] is None, result
    assert any("fresh interpreters" in note and "0700" in note for note in result["notes"]), result["notes"]


REACH = """
import socket

def add_feature_bias(x, b):
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        s.connect({path!r})
        what = "CONNECTED " + s.recv(100).decode(errors="replace")
    except Exception as exc:
        what = f"refused: {{type(exc).__name__}}: {{exc}}"
    raise RuntimeError("reach: " + what)

sample_bias = pairwise_squared_distance = add_feature_bias
"""


def test_a_worker_cannot_reach_the_shared_templates_socket(tmp_path):
    folder = tmp_path / "templates"
    try:
        _grade(folder, REFERENCE)  # the template is running, its socket there
        sock = next(folder.glob("*.sock"))
        attack = tmp_path / "attack" / "broadcast_bias.py"
        attack.parent.mkdir()
        attack.write_text(REACH.format(path=str(sock)))
        out = subprocess.run([sys.executable, "-m", "grader", "grade", str(attack.parent), "--runtime", "local",
                              "--exercises", "05", "--json", str(tmp_path / "r.json"), "-q"],
                             env=_env(folder), capture_output=True, text=True, timeout=300, cwd=ROOT)
        assert out.returncode in (0, 1), out.stderr[-2000:]
        report = json.loads((tmp_path / "r.json").read_text())
        messages = [c.get("message") or "" for e in report["exercises"] for c in e["checks"]]
        reached = [m for m in messages if "reach:" in m]
        assert reached, messages  # the attack ran
        assert not any("CONNECTED" in m for m in reached), reached
    finally:
        _kill_all(folder)


def test_the_starter_keeps_no_child_the_template_is_reparented(tmp_path, monkeypatch):
    # a Ray worker kills its children when it exits: the template must not be one, and the short
    # process that started it must have been reaped (no zombie left in the grading process)
    from grader.runtimes.local import judge_env

    def children() -> set[int]:  # this process's (a test run's other templates among them)
        return {int(p) for task in Path("/proc/self/task").iterdir() for p in (task / "children").read_text().split()}

    folder = tmp_path / "templates"
    monkeypatch.setenv("GRADER_TEMPLATE_DIR", str(folder))
    before = children()
    template = SharedTemplate(sys.executable, judge_env(), idle_s=30)
    try:
        template._await_ready()
        pid = template.state["pid"]
        assert _templates(folder) == [pid]
        parent = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        assert parent != os.getpid()
        new = children() - before
        assert not new, f"children left in the grading process: {new}"
        assert template.alive()
        os.kill(pid, signal.SIGKILL)  # its connection hangs up: the pool replaces a template not alive
        deadline = time.monotonic() + 10
        while template.alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not template.alive()
    finally:
        template.close()
        _kill_all(folder)
