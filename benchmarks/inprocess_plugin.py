"""A no-isolation stand-in for the judge's plugin, for benchmarks only: `sub` is the reference
module imported in the test process itself. It is what grading would cost without a worker."""
from __future__ import annotations

import importlib.util
import random
import signal
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from grader.judge.static import StaticView


class InProcessSubmission:
    """The judge's `sub` API (grader.judge.proxy.Submission) with no worker: calls, probes and the
    verifier run here; files live in `scratch` (the test's working directory, as a worker's is);
    `measure_memory` measures nothing (0 bytes): it is a stand-in for costs, not for verdicts."""

    def __init__(self, module, path: Path, scratch: Path | None = None):
        self.module = module
        self.path = path
        self.source = path.read_text()
        self.static = StaticView(path, self.source)
        self.scratch = str(scratch or Path.cwd())
        self.output = ""

    def probe(self, fn, *args, **kwargs):
        return fn(*(self.module if a is self else a for a in args), **kwargs)

    def timed(self, fn, *args, **kwargs):
        """`probe` and the seconds it took, as the judge's `sub.timed` (here there is no worker)."""
        start = time.perf_counter()
        answer = self.probe(fn, *args, **kwargs)
        return answer, time.perf_counter() - start

    def cpu_timed(self, fn, *args, **kwargs):
        """`probe` and the CPU seconds it took, as the judge's `sub.cpu_timed` counts them (the
        calling thread's time, or the process's over the cores, whichever is longer)."""
        from grader.timing import judge_cpu_seconds

        return judge_cpu_seconds(self.probe, fn, *args, **kwargs)

    def measure_memory(self, fn, *args, count_held=False, **kwargs):
        return fn(*args, **kwargs), 0

    def read_file(self, path, max_bytes=64 << 20):
        data = (Path(self.scratch) / path).read_bytes()
        if len(data) > max_bytes:
            raise ValueError(f"{path} is larger than {max_bytes} bytes")
        return data

    def write_file(self, path, data):
        (Path(self.scratch) / path).write_bytes(bytes(data))

    def verify(self, fn, *args, **kwargs):
        return fn(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.module, name)


TIME_LIMIT_S = 60  # a check still running then fails (in a worker, the check's own limit would end it)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    def expired(signum, frame):
        raise TimeoutError(f"in-process check ran past {TIME_LIMIT_S} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(TIME_LIMIT_S)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


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
def sub(request, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # what the candidate's code writes stays out of the checkout
    ex_dir = Path(request.node.path).parent
    name = ex_dir.name.split("_", 1)[1]
    path = ex_dir.parent.parent.parent / "solutions" / ex_dir.parent.name / ex_dir.name / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"inproc_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return InProcessSubmission(module, path, tmp_path)
