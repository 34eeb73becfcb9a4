"""Public checks for 70_gpu_benchmarking: run them with `grader check 70`."""
import time

from grader.testing import check


@check("value")
def test_returns_three_statistics(sub):
    result = sub.benchmark(lambda: sum(range(100)), warmup=1, iters=5)
    assert isinstance(result, dict) and set(result) == {"mean_ms", "median_ms", "min_ms"}, \
        f"expected a dict with mean_ms, median_ms and min_ms, got {result!r}"
    assert result["min_ms"] <= result["median_ms"], f"min_ms above median_ms: {result}"


@check("value")
def test_sleep_is_about_two_ms(sub):
    result = sub.benchmark(lambda: time.sleep(0.002), warmup=1, iters=10)
    assert isinstance(result, dict) and "median_ms" in result, f"expected a dict of statistics, got {result!r}"
    assert 1.9 <= result["median_ms"] <= 10.0, \
        f"fn sleeps 2 ms per call, yet median_ms = {result['median_ms']:.3f}: report milliseconds per call"
