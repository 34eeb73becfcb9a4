"""A no-isolation stand-in for the judge's plugin, for benchmarks only: `sub` is the reference
module imported in the test process itself. It is what grading would cost without a worker."""
from __future__ import annotations

import importlib.util
import random
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from grader.judge.static import StaticView


class InProcessSubmission:
    def __init__(self, module, path: Path):
        self._module = module
        self.path = path
        self.static = StaticView(path, path.read_text())

    def probe(self, fn, *args, **kwargs):
        return fn(*(self._module if a is self else a for a in args), **kwargs)

    def timed(self, fn, *args, **kwargs):
        """`probe` and the seconds it took, as the judge's `sub.timed` (here there is no worker)."""
        start = time.perf_counter()
        answer = self.probe(fn, *args, **kwargs)
        return answer, time.perf_counter() - start

    def __getattr__(self, name):
        return getattr(self._module, name)


def pytest_configure(config):
    config.addinivalue_line("markers", "check(kind, weight=1, timeout_s=None): a graded check")


def pytest_generate_tests(metafunc):
    if "device" in metafunc.fixturenames:
        metafunc.parametrize("device", ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(
            not torch.cuda.is_available(), reason="CUDA not available"))])


@pytest.fixture(autouse=True)
def _seed():
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)


@pytest.fixture
def sub(request):
    ex_dir = Path(request.node.path).parent
    name = ex_dir.name.split("_", 1)[1]
    path = ex_dir.parent.parent.parent / "solutions" / ex_dir.parent.name / ex_dir.name / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"inproc_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return InProcessSubmission(module, path)
