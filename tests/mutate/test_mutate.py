"""`grader mutate`: operators, the equivalents file, and end to end on a fixture exercise whose
check is deliberately weakened (tests/data/mutate_root: 01_row_sums sums rows but is checked only
on a symmetric matrix; 02_broken_ref's reference is wrong)."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grader.errors import ExerciseDefinitionError
from grader.mutate import equivalents
from grader.mutate.mutants import generate

ROOT = Path(__file__).resolve().parents[1] / "data" / "mutate_root"
GRADER = [sys.executable, "-m", "grader"]

TORCH_SOURCE = '''
import torch

def f(x, y, opt):
    a = x.sum(dim=1, keepdim=True).contiguous()
    b = torch.matmul(x, y).detach().clone().to("cpu")
    opt.zero_grad()
    with torch.no_grad():
        a.add_(1)
    c = b.add(a)
    a.backward()
    return c.item()
'''


def changes(source: str) -> set[str]:
    return {m.change for m in generate(source)}


def test_torch_operators_make_the_mistakes_they_stand_for():
    found = changes(TORCH_SOURCE)
    expected = [
        "a = x.sum(dim=1, keepdim=True).contiguous() -> a = x.sum(dim=0, keepdim=True).contiguous()",
        "a = x.sum(dim=1, keepdim=True).contiguous() -> a = x.sum(dim=-1, keepdim=True).contiguous()",
        "a = x.sum(dim=1, keepdim=True).contiguous() -> a = x.sum(dim=1).contiguous()",  # flag dropped
        "a = x.sum(dim=1, keepdim=True).contiguous() -> a = x.sum(dim=1, keepdim=True)",  # .contiguous()
        'b = torch.matmul(x, y).detach().clone().to("cpu") -> b = torch.matmul(y, x).detach().clone().to("cpu")',
        'b = torch.matmul(x, y).detach().clone().to("cpu") -> b = torch.matmul(x, y).clone().to("cpu")',
        'b = torch.matmul(x, y).detach().clone().to("cpu") -> b = torch.matmul(x, y).detach().to("cpu")',
        'b = torch.matmul(x, y).detach().clone().to("cpu") -> b = torch.matmul(x, y).detach().clone()',
        "opt.zero_grad() -> pass",
        "with torch.no_grad(): -> if True:",
        "a.add_(1) -> a.add(1)",
        "c = b.add(a) -> c = b.add_(a)",
        "a.backward() -> a.backward(create_graph=True)",
        "a.backward() -> a.backward(retain_graph=True)",
        "return c.item() -> return c",
    ]
    missing = [e for e in expected if e not in found]
    assert not missing, f"not generated: {missing}"


def test_mutants_compile_are_distinct_and_have_stable_ids():
    first, second = generate(TORCH_SOURCE), generate(TORCH_SOURCE)
    assert [m.id for m in first] == [m.id for m in second]
    assert len({m.source for m in first}) == len(first)
    for m in first:
        compile(m.source, "m.py", "exec")
    # an edit elsewhere keeps the ids of unrelated mutants
    edited = {m.change: m.id for m in generate("# a new comment line\n" + TORCH_SOURCE)}
    assert all(edited[m.change] == m.id for m in first)


def test_error_messages_and_pragma_lines_are_not_mutated():
    source = 'def f(x):\n    if x < 0:\n        raise ValueError("negative")\n    return x + 1  # pragma: no mutate\n'
    found = changes(source)
    assert not any("XX" in c or "NEGATIVE" in c for c in found), found
    assert not any(c.startswith("return x + 1") for c in found), found
    assert 'raise ValueError("negative") -> pass' in found


def test_equivalents_file_needs_a_reason(tmp_path):
    (tmp_path / equivalents.FILE_NAME).write_text('[[equivalent]]\nid = "abc"\n')
    with pytest.raises(ExerciseDefinitionError, match="one-line reason"):
        equivalents.load(tmp_path)
    (tmp_path / equivalents.FILE_NAME).write_text('[[equivalent]]\nid = "abc"\nreason = "same thing"\n')
    assert equivalents.load(tmp_path)["abc"].reason == "same thing"


def _cmdline(proc_dir: Path) -> str:
    try:
        return (proc_dir / "cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""


def mutate_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "GRADER_ROOT": str(ROOT)}
    return subprocess.run([*GRADER, "mutate", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)


@pytest.mark.slow
def test_mutate_end_to_end_reports_the_survivor_of_the_weakened_check(tmp_path):
    proc = mutate_cli("01", "02", "--jobs", "2", "--json", "out.json", "--html", "out.html", cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    report = json.loads((tmp_path / "out.json").read_text())
    row_sums, broken = report["exercises"]
    survivors = [r for r in row_sums["results"] if r["status"] == "survived"]
    assert [r["change"] for r in survivors] == ["return x.sum(dim=1) -> return x.sum(dim=0)"]
    assert survivors[0]["passed"] == ["test_shape", "test_values"]
    assert "-    return x.sum(dim=1)\n+    return x.sum(dim=0)" in survivors[0]["diff"]
    assert "SURVIVOR" in proc.stdout and "+    return x.sum(dim=0)" in proc.stdout
    # the accepted equivalent is reported apart, the entry for a mutant that no longer exists as stale
    assert [(r["id"], r["reason"]) for r in row_sums["results"] if r["status"] == "equivalent"] == \
        [("26301b04b4", "x is 2-D: dim -1 is dim 1")]
    assert any(s.startswith("0000000000") for s in row_sums["stale"])
    assert row_sums["score"] == 0.75 and row_sums["by_kind"]["value"]["killed"] >= 1
    # a reference below 100 % stops its exercise before any mutant is generated
    assert broken["mutants"] == 0 and "not 100 %" in broken["problem"]
    assert "Survivor" in (tmp_path / "out.html").read_text()
    # a rerun takes every verdict from the cache
    again = mutate_cli("01", "--json", "again.json", cwd=tmp_path)
    assert again.returncode == 1
    assert json.loads((tmp_path / "again.json").read_text())["graded_now"] == 0


def test_unknown_exercise_is_a_usage_error(tmp_path):
    proc = mutate_cli("99_nope", cwd=tmp_path)
    assert proc.returncode == 2 and "unknown exercise '99_nope'" in proc.stderr


@pytest.mark.slow
def test_ctrl_c_exits_130_keeps_what_was_graded_and_a_rerun_goes_on(tmp_path):
    (tmp_path / "tmp").mkdir()  # the judges' temporary folders (and so their command lines) are in here
    env = {**os.environ, "GRADER_ROOT": str(ROOT), "TMPDIR": str(tmp_path / "tmp")}
    # SIGINT as a terminal's user has it: a shell running the suite in the background (`... &`)
    # ignores it for its children, and a Python started with it ignored never raises KeyboardInterrupt
    proc = subprocess.Popen([*GRADER, "mutate", "01", "--batch-size", "1", "--json", "out.json"], cwd=tmp_path,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 300
    for line in proc.stderr:
        # the first progress line: "graded 1" or, when an accepted equivalent or a second judge's
        # batch came first, "graded 2" (waiting for "graded 1" let the run finish under load)
        if re.search(r"graded \d+ mutants", line) or time.monotonic() > deadline:
            break
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, out + err
    cached = json.loads((tmp_path / ".grader-mutate" / "01_row_sums.json").read_text())["results"]
    graded_before = len(cached) - 1  # one entry is the reference's verdict
    assert 1 <= graded_before < 5
    assert json.loads((tmp_path / "out.json").read_text())["interrupted"] is True
    time.sleep(0.5)
    left = [p for p in Path("/proc").iterdir() if p.name.isdigit() and str(tmp_path) in _cmdline(p)]
    assert left == [], "judges of the interrupted run are still running"
    mutate_cli("01", "--json", "again.json", cwd=tmp_path)
    assert json.loads((tmp_path / "again.json").read_text())["graded_now"] == 5 - graded_before
