"""Public checks for 78_loss_that_turns_nan: run them with `grader check 78`.

They check the program on ordinary data only, where it already works. The data it fails on is for
you to find.
"""
import torch
import torch.nn.functional as F

from grader.testing import assert_close, check


@check("value", weight=0.5)
def test_ordinary_batch(sub):
    g = torch.Generator().manual_seed(0)
    logits, targets = torch.randn(6, 3, generator=g), torch.tensor([0, 2, -100, 1, 1, 0])
    assert_close(sub.masked_cross_entropy(logits, targets), F.cross_entropy(logits, targets, ignore_index=-100),
                 atol=1e-5, rtol=1e-5, what="masked_cross_entropy on an ordinary batch with one ignored target")


@check("value", weight=0.5)
def test_train_step_returns_a_float(sub):
    def run(mod, x, y):
        torch.manual_seed(0)
        model = torch.nn.Linear(4, 3)
        return mod.train_step(model, torch.optim.SGD(model.parameters(), lr=0.1), x, y)

    g = torch.Generator().manual_seed(1)
    loss = sub.probe(run, sub, torch.randn(5, 4, generator=g), torch.randint(0, 3, (5,), generator=g))
    assert type(loss) is float and loss == loss, f"train_step returned {loss!r}, expected a finite Python float"
