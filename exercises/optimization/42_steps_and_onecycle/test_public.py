"""Public checks for 42_steps_and_onecycle: run them with `grader check 42`.

The optimizer and your scheduler are built inside a probe (a function that runs next to your
code) and stepped once per optimizer step; the lrs come back as a list.
"""
import numpy as np
import torch

from grader.testing import check


def _counts(mod, settings):
    """Each count, as an int when it is an integer (a Python int or a numpy integer), else its type name."""
    out = []
    for args in settings:
        r = mod.optimizer_steps_per_epoch(*args)
        integral = type(r) is int or isinstance(r, np.integer)
        out.append(int(r) if integral else f"a {type(r).__name__} ({repr(r)[:40]})")
    return out


@check("value")
def test_short_last_batch(sub):
    kept, dropped = sub.probe(_counts, sub, [(100, 30, False), (100, 30, True)])
    assert kept == 4, f"100 samples in batches of 30, drop_last=False: got {kept}, expected the int 4"
    assert dropped == 3, f"100 samples in batches of 30, drop_last=True: got {dropped}, expected the int 3"


@check("value")
def test_accumulation_groups(sub):
    (steps,) = sub.probe(_counts, sub, [(100, 10, False, 3)])
    assert steps == 4, \
        f"10 batches with accumulation_steps=3 step after batches 3, 6, 9 and 10: got {steps}, expected the int 4"


def _run(mod, max_lr, steps):
    w = torch.nn.Parameter(torch.ones(2))
    opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
    sched = mod.build_onecycle(opt, max_lr, 100, 10, 2, False)      # 2 epochs of 10 batches
    lrs = []
    for _ in range(steps):
        lrs.append(opt.param_groups[0]["lr"])
        w.sum().backward()
        opt.step()
        opt.zero_grad()
        sched.step()
    return lrs


@check("value")
def test_onecycle_ends_at_min_lr(sub):
    lrs = sub.probe(_run, sub, 0.5, 20)
    assert abs(lrs[0] - 0.5 / 25) < 1e-12, f"the first step used lr {lrs[0]}, expected max_lr/25 = 0.02"
    assert abs(lrs[-1] - 0.5 / 25 / 1e4) < 1e-15, f"the 20th and last step used lr {lrs[-1]}, expected max_lr/25/1e4 = 2e-06"
