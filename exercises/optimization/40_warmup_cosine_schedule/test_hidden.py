"""Hidden checks for 40_warmup_cosine_schedule.

Optimizers and schedulers are built and stepped inside probes, over parameters that live in the
worker; the lrs come back as data and are compared with the closed form computed in the judge.
Warnings are recorded in the worker with `probes.capture_warnings` (`pytest.warns` in the judge
cannot see them).
"""
import math

import pytest
import torch

from grader import probes
from grader.testing import assert_close, check


def closed_form(base, s, warmup, total, r):
    if s < warmup:
        return base * (s + 1) / warmup
    return base * (r + (1 - r) * 0.5 * (1 + math.cos(math.pi * (s - warmup) / (total - warmup))))


def _assert_lrs(got, want, what):
    """The lrs against the closed form, at assert_close's float64 defaults (atol 1e-8, rtol 1e-7):
    the schedule is a value, not a bit pattern (a multiplier computed through float32 is fine).
    The message names the step (row) and group (column) of the largest error."""
    assert_close(torch.tensor(got, dtype=torch.float64), torch.tensor(want, dtype=torch.float64), what=what)


def _setup(mod, warmup, total, r, bases=(0.1,)):
    w = torch.nn.Parameter(torch.tensor([1.0, -2.0, 3.0], dtype=torch.float64))
    v = torch.nn.Parameter(torch.tensor([0.5], dtype=torch.float64))
    groups = [{"params": [w], "lr": bases[0]}] + [{"params": [v], "lr": b} for b in bases[1:]]
    opt = torch.optim.SGD(groups, lr=bases[0])
    if r is None:                      # min_lr_ratio left to its default
        sched = mod.make_warmup_cosine(opt, warmup, total)
    else:
        sched = mod.make_warmup_cosine(opt, warmup, total, r)
    return w, v, opt, sched


def _closure(w, v):
    return lambda: (w ** 2).sum() + (v ** 2).sum()


def _schedule(mod, warmup, total, r, bases, steps):
    """Probe: the scheduler alone, stepped by the judge's own loop (probes.train_steps)."""
    w, v, opt, sched = _setup(mod, warmup, total, r, bases)
    kind = isinstance(sched, torch.optim.lr_scheduler.LRScheduler)
    return kind, probes.train_steps(opt, [w, v], _closure(w, v), steps, sched)["lrs"]


def _run(mod, warmup, total, r, steps):
    """Probe: the candidate's run_steps over the candidate's scheduler, with warnings recorded."""
    w, v, opt, sched = _setup(mod, warmup, total, r)
    with probes.capture_warnings() as warned:
        lrs = mod.run_steps(opt, sched, _closure(w, v), steps)
    kinds = (sorted({"float" if isinstance(x, float) else type(x).__name__ for x in lrs})  # np.float64 is a float
             if isinstance(lrs, list) else type(lrs).__name__)
    return {"lrs": lrs if isinstance(lrs, list) else None, "kinds": kinds, "w": w.detach().clone(),
            "grad_graph": w.grad is not None and (w.grad.requires_grad or w.grad.grad_fn is not None),
            "warnings": warned.as_data()}


def _expected_w(warmup, total, r, steps):
    """The judge's own loop: SGD on (w**2).sum() with the closed-form lrs."""
    w = torch.tensor([1.0, -2.0, 3.0], dtype=torch.float64)
    for s in range(steps):
        w = w - closed_form(0.1, s, warmup, total, r) * 2 * w
    return w


@check("value", weight=2)
def test_lrs_match_closed_form(sub):
    kind, lrs = sub.probe(_schedule, sub, 10, 100, 0.1, (0.1, 0.02), 100)
    assert kind, "make_warmup_cosine must return a torch.optim.lr_scheduler.LRScheduler"
    want = [(closed_form(0.1, s, 10, 100, 0.1), closed_form(0.02, s, 10, 100, 0.1)) for s in range(100)]
    _assert_lrs(lrs, want, "the lrs of steps 0..99 (rows) of the groups with base lr 0.1 and 0.02 (columns), "
                           "T=100, W=10, r=0.1")


@check("value", weight=2)
def test_run_steps_returns_lrs_used(sub):
    seen = sub.probe(_run, sub, 10, 100, 0.1, 30)
    assert seen["lrs"] is not None, f"run_steps returned a {seen['kinds']}, expected a list of floats"
    assert seen["kinds"] == ["float"], f"run_steps returned a list of {seen['kinds']}, expected Python floats"
    want = [closed_form(0.1, s, 10, 100, 0.1) for s in range(30)]
    assert len(seen["lrs"]) == 30, f"run_steps(..., 30) returned {len(seen['lrs'])} lrs"
    _assert_lrs(seen["lrs"], want, "the lrs run_steps reported for steps 0..29 (the lrs the optimizer used)")
    assert_close(seen["w"], _expected_w(10, 100, 0.1, 30),
                 what="the parameter after 30 steps (zero_grad, backward, optimizer.step, scheduler.step)")
    assert not seen["grad_graph"], "after run_steps the gradients hold an autograd graph: a plain backward() keeps none"


@check("api")
def test_no_scheduler_order_warning(sub):
    seen = sub.probe(_run, sub, 5, 20, 0.0, 6)
    warned = seen["warnings"]
    assert not warned["tampered"], f"the warnings module was changed while run_steps ran: {warned['tampered']}"
    order = [r["message"][:160] for r in warned["records"] if "lr_scheduler.step()" in r["message"]]
    assert not order, f"torch warned: {order[0]}"
    assert seen["lrs"] is not None and len(seen["lrs"]) == 6, "run_steps must return the 6 lrs it used"
    assert_close(seen["w"], _expected_w(5, 20, 0.0, 6), what="the parameter after 6 steps")


def _resume(mod, warmup, total, r, first, then):
    import copy

    w, v, opt, sched = _setup(mod, warmup, total, r, (0.1, 0.02))
    mod.run_steps(opt, sched, _closure(w, v), first)
    saved_opt, saved_sched = copy.deepcopy(opt.state_dict()), copy.deepcopy(sched.state_dict())
    w2 = torch.nn.Parameter(w.detach().clone())
    v2 = torch.nn.Parameter(v.detach().clone())
    opt2 = torch.optim.SGD([{"params": [w2], "lr": 0.1}, {"params": [v2], "lr": 0.02}], lr=0.1)
    sched2 = mod.make_warmup_cosine(opt2, warmup, total, r)
    opt2.load_state_dict(saved_opt)
    sched2.load_state_dict(saved_sched)
    return probes.train_steps(opt2, [w2, v2], _closure(w2, v2), then, sched2)["lrs"]


@check("state", weight=2)
def test_resume_mid_schedule(sub):
    lrs = sub.probe(_resume, sub, 10, 100, 0.1, 37, 20)
    want = [(closed_form(0.1, s, 10, 100, 0.1), closed_form(0.02, s, 10, 100, 0.1)) for s in range(37, 57)]
    _assert_lrs(lrs, want, "after resuming at step 37 (state_dicts loaded into a fresh optimizer and scheduler), "
                           "the lrs of steps 37..56 (rows; row 0 is step 37) of the two groups (columns)")


@check("value")
def test_no_warmup(sub):
    kind, lrs = sub.probe(_schedule, sub, 0, 10, None, (0.1,), 10)
    assert kind, "make_warmup_cosine must return a torch.optim.lr_scheduler.LRScheduler"
    assert lrs[0][0] == pytest.approx(0.1, abs=1e-8, rel=1e-7), f"with warmup_steps=0 the first lr is {lrs[0][0]}, expected the base lr"
    _assert_lrs(lrs, [(closed_form(0.1, s, 0, 10, 0.0),) for s in range(10)],
                "the lrs of steps 0..9 with warmup_steps=0 (min_lr_ratio left at its default 0)")


@check("value")
@pytest.mark.parametrize("warmup,total", [(10, 10), (10, 5)], ids=["equal", "shorter"])
def test_total_not_above_warmup_raises(sub, warmup, total):
    def build(mod, warmup, total):
        w = torch.nn.Parameter(torch.ones(2))
        mod.make_warmup_cosine(torch.optim.SGD([w], lr=0.1), warmup, total)

    with pytest.raises(ValueError):
        sub.probe(build, sub, warmup, total)


@check("value")
def test_lr_floor(sub):
    kind, lrs = sub.probe(_schedule, sub, 3, 20, 0.5, (0.1,), 20)
    assert kind, "make_warmup_cosine must return a torch.optim.lr_scheduler.LRScheduler"
    for s, (lr,) in enumerate(lrs):
        assert lr >= 0, f"lr of step {s} is negative ({lr})"
        if s >= 3:
            assert lr >= 0.05 - (1e-8 + 1e-7 * 0.05), f"lr of step {s} is {lr}, below base * min_lr_ratio = 0.05"
    _assert_lrs(lrs, [(closed_form(0.1, s, 3, 20, 0.5),) for s in range(20)], "the lrs of steps 0..19 (W=3, T=20, r=0.5)")
