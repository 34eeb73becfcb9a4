"""Public checks for 57_training_sanity_checks: run them with `grader check 57`.

Models are built inside a probe (a function that runs next to your code); only plain answers come
back.
"""
import torch
import torch.nn.functional as F

from grader.testing import check


def _overfit(mod):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
    x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
    return mod.overfit_one_batch(model, x, y, F.cross_entropy, steps=60, lr=5e-2)


class TwoHeads(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Linear(3, 3)
        self.spare = torch.nn.Linear(3, 3)       # defined, never called

    def forward(self, x):
        return self.body(x)


def _unused(mod):
    model = TwoHeads()
    got = mod.unused_parameters(model, torch.randn(2, 3))
    return got, [n for n, p in model.named_parameters() if p.grad is not None]


@check("value")
def test_memorises_eight_samples(sub):
    losses = sub.probe(_overfit, sub)
    assert isinstance(losses, list) and len(losses) == 60, "overfit_one_batch(..., steps=60) must return 60 losses"
    assert losses[-1] < 0.05 * losses[0], f"the loss went from {losses[0]} to {losses[-1]}: it should collapse"


@check("value")
def test_spare_layer_is_unused(sub):
    got, with_grad = sub.probe(_unused, sub)
    assert sorted(got) == ["spare.bias", "spare.weight"], f"unused_parameters returned {got}"
    assert not with_grad, f"unused_parameters left .grad on {with_grad}"
