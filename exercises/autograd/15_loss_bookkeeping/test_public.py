"""Public checks for 15_loss_bookkeeping: run them with `grader check 15`."""
import torch

from grader.testing import check


@check("value")
def test_weighted_mean_example(sub):
    meter = sub.RunningMean()
    meter.update(torch.tensor(1.0), 3)
    meter.update(torch.tensor(3.0), 1)
    result = meter.compute()
    assert abs(result - 1.5) < 1e-6, f"expected (1*3 + 3*1) / 4 = 1.5, got {result}"


@check("dtype")
def test_compute_is_python_float(sub):
    meter = sub.RunningMean()
    meter.update(torch.tensor(0.5), 10)
    result = meter.compute()
    assert type(result) is float, f"compute() returned {type(result).__name__}, expected a Python float"


@check("value")
def test_empty_raises(sub):
    meter = sub.RunningMean()
    try:
        meter.compute()
    except ValueError:
        return
    raise AssertionError("compute() before any update() must raise ValueError")
