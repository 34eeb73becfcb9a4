"""Public checks for 55_metric_logging: run them with `grader check 55`.

The logger writes through a writer object, so a small recording writer (with the method
signatures of `SummaryWriter`) is built inside a probe (a function that runs next to your code)
and the calls it saw come back as plain values.
"""
import torch

from grader.testing import check


def _recording_writer():
    class Recorder:
        def __init__(self):
            self.calls = []

        def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                       double_precision=False):
            value = float(scalar_value.item()) if isinstance(scalar_value, torch.Tensor) else scalar_value
            self.calls.append(("add_scalar", tag, value, type(scalar_value).__name__, global_step))

        def flush(self):
            self.calls.append(("flush",))

        def close(self):
            self.calls.append(("close",))

    return Recorder()


def _two_steps(mod):
    writer = _recording_writer()
    logger = mod.MetricLogger(writer)
    w = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    opt = torch.optim.SGD([w], lr=0.5)
    for _ in range(2):
        logger.log_train_step((w * w).sum(), opt)      # loss 5.0, with a graph
    logger.log_epoch(0, 4.0, 4.5, 0.75)
    return writer.calls


def _close_twice(mod):
    writer = _recording_writer()
    logger = mod.MetricLogger(writer)
    logger.close()
    logger.close()
    return writer.calls


@check("value")
def test_two_steps_and_an_epoch(sub):
    calls = sub.probe(_two_steps, sub)
    got = sorted((c[1], c[2], c[3], c[4]) for c in calls if c[0] == "add_scalar")
    expected = sorted([("Loss/train_step", 5.0, "float", 0), ("LR/group0", 0.5, "float", 0),
                       ("Loss/train_step", 5.0, "float", 1), ("LR/group0", 0.5, "float", 1),
                       ("Loss/train", 4.0, "float", 0), ("Loss/val", 4.5, "float", 0),
                       ("Accuracy/val", 0.75, "float", 0)])
    assert got == expected, f"the writer saw (tag, value, value type, global_step) {got}, expected {expected}"


@check("state")
def test_close_twice(sub):
    calls = sub.probe(_close_twice, sub)
    assert calls == [("flush",), ("close",)], f"close() twice made the calls {calls}, expected flush then close, once"
