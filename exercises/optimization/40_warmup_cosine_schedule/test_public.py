"""Public checks for 40_warmup_cosine_schedule: run them with `grader check 40`.

The optimizer and the scheduler are built inside a probe (a function that runs next to your
code), over a parameter that lives there, and the lrs come back as a list.
"""
import math

import torch

from grader.testing import check


def _lrs(mod, warmup, total, r, steps):
    w = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    opt = torch.optim.SGD([w], lr=0.1)
    sched = mod.make_warmup_cosine(opt, warmup, total, r)
    return mod.run_steps(opt, sched, lambda: (w ** 2).sum(), steps)


@check("value")
def test_warmup_then_cosine(sub):
    lrs = sub.probe(_lrs, sub, 4, 12, 0.0, 12)
    want = [0.1 * f for f in [0.25, 0.5, 0.75, 1.0] + [0.5 * (1 + math.cos(math.pi * k / 8)) for k in range(8)]]
    # float64's usual tolerances (absolute 1e-8, relative 1e-7): a value, not a bit pattern
    assert len(lrs) == 12 and all(math.isclose(a, b, rel_tol=1e-7, abs_tol=1e-8) for a, b in zip(lrs, want)), \
        f"lrs {lrs}, expected {want}"


@check("value")
def test_min_lr_ratio(sub):
    lrs = sub.probe(_lrs, sub, 2, 6, 0.2, 6)
    assert math.isclose(lrs[2], 0.1, rel_tol=1e-7, abs_tol=1e-8), \
        f"the first step after warmup has lr {lrs[2]}, expected the base lr 0.1"
    assert min(lrs[2:]) >= 0.02 - 1e-8, f"after warmup the lr must stay at or above base * min_lr_ratio: {lrs}"
