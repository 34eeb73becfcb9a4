"""Exercise 70's sleep-timing checks must hold on a loaded machine, where the scheduler wakes a
sleeping process late by a few ms, and still fail the timings they are for.

CI once measured a correct answer's 1 ms sleeps at a 5.2 ms median, three runs in a row, and
failed the reference's alternative. Here every `time.sleep` is stretched by a fixed delay (the
late wake-up, taken to the worst seen) and the checks run in this process, with the benchmarks'
in-process `sub`, against the reference, an alternative and the mistakes they name in "Caught by"."""
import importlib.util
import time
from pathlib import Path

import pytest

from benchmarks.inprocess_plugin import InProcessSubmission

ROOT = Path(__file__).resolve().parents[2]
EXERCISE = ROOT / "exercises" / "devices_performance" / "70_gpu_benchmarking"
SOLUTIONS = ROOT / "solutions" / "devices_performance" / "70_gpu_benchmarking"
CHECKS = ("test_sleep_statistics", "test_per_call_statistics", "test_warmup_not_timed")


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def hidden():
    return _load(EXERCISE / "test_hidden.py", "_timing_checks_70_hidden")


def _stretch_sleeps(monkeypatch, late_ms):
    real_sleep = time.sleep
    monkeypatch.setattr(time, "sleep", lambda seconds: real_sleep(seconds + late_ms / 1000.0))


@pytest.mark.parametrize("late_ms", [0.0, 5.0])
@pytest.mark.parametrize("answer", ["gpu_benchmarking.py", "alternatives/default_timer_sync.py"])
def test_correct_answers_pass_the_timing_checks_when_sleeps_wake_late(hidden, monkeypatch, answer, late_ms):
    path = SOLUTIONS / answer
    sub = InProcessSubmission(_load(path, f"_timing_answer_{path.stem}"), path)
    _stretch_sleeps(monkeypatch, late_ms)
    for name in CHECKS:
        getattr(hidden, name)(sub)


@pytest.mark.parametrize("late_ms", [0.0, 5.0])
@pytest.mark.parametrize("mistake, check", [("times_warmup", "test_warmup_not_timed"),
                                            ("unsorted_median", "test_per_call_statistics"),
                                            ("seconds_not_ms", "test_sleep_statistics"),
                                            ("seconds_not_ms", "test_per_call_statistics")])
def test_wrong_timings_fail_also_when_sleeps_wake_late(hidden, monkeypatch, mistake, check, late_ms):
    path = SOLUTIONS / "mistakes" / f"{mistake}.py"
    sub = InProcessSubmission(_load(path, f"_timing_mistake_{mistake}"), path)
    _stretch_sleeps(monkeypatch, late_ms)
    with pytest.raises(AssertionError):
        getattr(hidden, check)(sub)
