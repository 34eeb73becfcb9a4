"""Public checks for 41_reduce_on_plateau: run them with `grader check 41`.

The optimizer and your scheduler are built inside a probe (a function that runs next to your
code); the lrs after each `step(metric)` come back as a list.
"""
import torch

from grader.testing import check


def _lrs(mod, lr, kwargs, metrics):
    w = torch.nn.Parameter(torch.ones(2))
    opt = torch.optim.SGD([w], lr=lr)
    sched = mod.PlateauLR(opt, **kwargs)
    out = []
    for m in metrics:
        sched.step(m)
        out.append(opt.param_groups[0]["lr"])
    return out


@check("value")
def test_flat_loss_halves_lr(sub):
    lrs = sub.probe(_lrs, sub, 1.0, {"factor": 0.5, "patience": 1}, [2.0, 2.0, 2.0, 2.0, 2.0])
    assert lrs == [1.0, 1.0, 0.5, 0.5, 0.25], f"lrs {lrs}, expected [1.0, 1.0, 0.5, 0.5, 0.25]"


@check("value")
def test_max_mode_accuracy(sub):
    lrs = sub.probe(_lrs, sub, 1.0, {"mode": "max", "factor": 0.1, "patience": 0}, [0.5, 0.6, 0.6, 0.7])
    assert [round(x, 12) for x in lrs] == [1.0, 1.0, 0.1, 0.1], f"lrs {lrs}, expected [1.0, 1.0, 0.1, 0.1]"
