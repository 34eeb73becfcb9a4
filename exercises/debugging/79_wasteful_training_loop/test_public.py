"""Public checks for 79_wasteful_training_loop: run them with `grader check 79`.

They check what the loop returns, which is already right. What it costs is for you to find out.
"""
import torch

from grader.testing import check


def _run(mod, batches, log_every):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    return mod.train(model, torch.optim.SGD(model.parameters(), lr=0.1), batches, accumulate=2, log_every=log_every)


@check("value", weight=0.5)
def test_one_loss_per_window(sub):
    g = torch.Generator().manual_seed(0)
    batches = [(torch.randn(5, 4, generator=g), torch.randint(0, 2, (5,), generator=g)) for _ in range(7)]
    history = sub.probe(_run, sub, batches, 3)
    assert isinstance(history, list) and len(history) == 2, \
        f"train over 7 batches with log_every=3 returned {history!r}: expected 2 window means"
    assert all(type(v) is float and 0 < v < 10 for v in history), f"train returned {history!r}: expected plain floats"


@check("value", weight=0.5)
def test_nan_raises(sub):
    g = torch.Generator().manual_seed(0)
    batches = [(torch.randn(5, 4, generator=g), torch.randint(0, 2, (5,), generator=g)) for _ in range(4)]
    batches[1][0][0, 0] = float("nan")

    def run(mod, batches):
        try:
            _run(mod, batches, 2)
        except FloatingPointError:
            return True
        return False

    assert sub.probe(run, sub, batches), "train must raise FloatingPointError when a window's mean loss is NaN"
