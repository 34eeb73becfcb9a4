"""The fault-injection script's CI version: 20 submissions on the local runtime while judges are
killed at random and the grader is SIGTERMed and resumed twice (benchmarks/faults.py; its
200-submission run and the Ray node kill are reported in docs/scaling.md)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_fault_injection_20_submissions_one_exact_result_each():
    out = subprocess.run([sys.executable, "benchmarks/faults.py", "--count", "20", "--jobs", "2",
                          "--kill-every", "1"], cwd=ROOT, capture_output=True, text=True, timeout=1200)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert "OK" in out.stdout.splitlines()[-1]
    killed = int(out.stdout.split("--jobs 2, ")[1].split()[0])
    assert killed >= 1, out.stdout  # the faults really happened
