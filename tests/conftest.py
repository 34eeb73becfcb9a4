"""Shared fixtures: a fork server for sandbox tests, and paths to the project's folders."""
from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"

# `make test` runs the suite on every core (pytest-xdist, `--dist loadfile`): each file goes whole
# to one worker (module-scoped fixtures grade a batch once), in the order collected. The longest
# files go first, so that no worker is left with one of them alone at the end.
LONGEST_FIRST = ("tests/exercises/test_exercises.py", "tests/attacks/test_attacks.py", "tests/grading/test_faults.py",
                 "tests/runtimes/test_docker.py", "tests/grading/test_ray.py", "tests/sandbox/test_sandbox_profile.py",
                 "tests/grading/test_batch.py", "tests/sandbox/test_containment.py", "tests/judge/test_trust.py")


def pytest_collection_modifyitems(items):
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))  # stable: file order kept


def pytest_terminal_summary(terminalreporter):
    """Where the time went: seconds per test folder (setup, call and teardown, summed over the
    workers: on 2 cores the wall time is about half the total), largest first."""
    per_folder: dict[str, float] = {}
    for reports in terminalreporter.stats.values():
        for report in reports:
            nodeid, duration = getattr(report, "nodeid", ""), getattr(report, "duration", None)
            if nodeid.startswith("tests/") and isinstance(duration, float):
                folder = "/".join(nodeid.split("::", 1)[0].split("/")[:-1])
                per_folder[folder] = per_folder.get(folder, 0.0) + duration
    if per_folder:
        terminalreporter.write_sep("=", "seconds per test folder (all workers)")
        for folder, seconds in sorted(per_folder.items(), key=lambda item: -item[1]):
            terminalreporter.write_line(f"{seconds:8.1f}  {folder}")


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
