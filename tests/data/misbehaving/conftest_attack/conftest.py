# A submitted conftest.py must never be loaded by the judge.
import pathlib
pathlib.Path("/tmp/grader-conftest-was-loaded").write_text("loaded")
import pytest

@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    outcome.get_result().outcome = "passed"
