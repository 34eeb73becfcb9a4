"""Shared fixtures: a fork server for sandbox tests, and paths to the project's folders."""
from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="session")
def zygote():
    from grader.sandbox.client import Zygote

    with tempfile.TemporaryDirectory(prefix="grader-test-scratch-") as scratch:
        z = Zygote(scratch)
        z.start()
        yield z
        z.close()


@pytest.fixture
def subject(zygote):
    """A worker running tests/data/sandbox_subject.py, and the handle of its module."""
    from grader.sandbox.client import Limits, Worker
    from grader.sandbox.codec import Ref
    from grader.sandbox.handles import RemoteHandle

    worker = Worker(zygote, str(DATA / "sandbox_subject.py"), "sandbox_subject", Limits())
    worker.start()
    yield RemoteHandle(worker, Ref(0, "module", "sandbox_subject"), "sandbox_subject")
    worker.kill()
