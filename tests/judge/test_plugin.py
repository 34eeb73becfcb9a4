"""The judge's plugin on a synthetic exercise: fixtures, probes, outcomes, markers, budgets."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from grader.grading import grade

TESTS = '''
import pytest
import torch
from grader.testing import assert_close, check, requires_cuda


def observe_version(mod, x):          # a module-level probe: travels by value
    before = x._version
    mod.scale(x)
    return x._version == before


@check("value", weight=3)
def test_scale(sub):
    assert_close(sub.scale(torch.ones(2)), torch.full((2,), 2.0))


@check("state")
def test_no_inplace(sub):
    assert sub.probe(observe_version, sub, torch.ones(3)), "scale modified its input in place"


@check("value")
def test_raises_value_error(sub):
    with pytest.raises(ValueError):
        sub.scale("not a tensor")


@requires_cuda
@check("device")
def test_cuda_only(sub):
    assert sub.scale(torch.ones(1, device="cuda")).is_cuda


def test_without_marker(sub):
    assert True


@check("perf", timeout_s=1)
def test_slow(sub):
    sub.slow()
'''


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("plugin-root")
    ex = root / "exercises" / "demo" / "01_scaler"
    ex.mkdir(parents=True)
    (ex / "exercise.toml").write_text('title = "Scale"\ntrack = "demo"\ndifficulty = "easy"\ngpu = "optional"\n'
                                      'sources = []\n')
    (ex / "README.md").write_text("# Scale\n")
    (ex / "scaler.py").write_text("def scale(x):\n    raise NotImplementedError\n")
    (ex / "test_public.py").write_text("")
    (ex / "test_hidden.py").write_text(TESTS)
    return root


def write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "scaler.py"
    path.write_text(textwrap.dedent(body))
    return path


def outcomes(root: Path, sub: Path) -> dict[str, tuple[str, str]]:
    run = grade([sub], runtime="local", root=root, exercises=["01"])
    (ex,) = run.submissions[0].exercises
    return {c.name: (c.outcome, c.message) for c in ex.checks}, ex


def test_outcomes_and_scoring(root, tmp_path):
    sub = write(tmp_path, """\
        import time
        def scale(x):
            if not hasattr(x, "mul_"):
                raise ValueError("need a tensor")
            return x.mul_(2)
        def slow():
            time.sleep(30)
        """)
    results, ex = outcomes(root, sub)
    assert results["test_scale"][0] == "passed"
    assert results["test_no_inplace"] == ("failed", "scale modified its input in place")
    assert results["test_raises_value_error"][0] == "passed"
    assert results["test_cuda_only"] == ("not_run", "CUDA not available")
    assert results["test_without_marker"][0] == "error"
    assert "has no @check(kind, weight) marker" in results["test_without_marker"][1]
    # it sleeps: no CPU used, so the wall-clock backstop stops it, and says why
    assert results["test_slow"][1].startswith("worker killed: time limit 1 s exceeded while scaler.slow() (after ")
    assert results["test_slow"][1].endswith("of CPU: it was sleeping or blocked)")
    # weights 3 + 1 + 1 + 1 (marker-less counts as 1) + 1 = 7; cuda not run; passed: 3 + 1
    assert ex.max_score == 10
    assert ex.score == pytest.approx(10 * 4 / 7, abs=1e-3)


def test_stub_scores_zero_even_against_pytest_raises(root):
    results, ex = outcomes(root, root / "exercises" / "demo" / "01_scaler" / "scaler.py")
    assert ex.score == 0
    assert results["test_raises_value_error"][0] == "failed"
    assert "raised NotImplementedError" in results["test_raises_value_error"][1]


SEEDED = '''
import random

import numpy as np
import torch
from grader.testing import check


def first_draws():
    g = torch.Generator().manual_seed(0)
    return torch.rand(3, generator=g), np.random.RandomState(0).random_sample(), random.Random(0).random()


@check("value")
def test_first(sub):
    t, n, r = first_draws()
    assert torch.equal(torch.rand(3), t) and np.random.random_sample() == n and random.random() == r
    torch.rand(100)  # consumed: the next check must not start from here


@check("value")
def test_second(sub):
    t, n, r = first_draws()
    assert torch.equal(torch.rand(3), t) and np.random.random_sample() == n and random.random() == r
'''


def test_every_check_starts_from_the_seed_in_the_judge(tmp_path):
    """The judge reseeds before each check (the first with torch.manual_seed, the next ones only
    the CPU generator while no accelerator is initialised): each check draws the seed's values."""
    ex = tmp_path / "exercises" / "demo" / "01_scaler"
    ex.mkdir(parents=True)
    (ex / "exercise.toml").write_text('title = "Scale"\ntrack = "demo"\ndifficulty = "easy"\ngpu = "optional"\n'
                                      'sources = []\n')
    (ex / "README.md").write_text("# Scale\n")
    (ex / "scaler.py").write_text("def scale(x):\n    return x\n")
    (ex / "test_public.py").write_text("")
    (ex / "test_hidden.py").write_text(SEEDED)
    results, ex_result = outcomes(tmp_path, ex / "scaler.py")
    assert results == {"test_first": ("passed", ""), "test_second": ("passed", "")}, results
