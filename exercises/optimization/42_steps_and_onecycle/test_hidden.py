"""Hidden checks for 42_steps_and_onecycle.

`optimizer_steps_per_epoch` is called inside a probe that returns each answer's exact type name
and, for an integer, its value; the expected counts come from `len(DataLoader(...))` in the judge.
The candidate's `OneCycleLR` is built and stepped inside probes by a training loop written here
(a real `DataLoader`, gradient accumulation, `scheduler.step()` after each `optimizer.step()`),
over an SGD whose param groups are read directly (`object.__getattribute__`); the lrs come back
as lists of floats and are compared with torch's `OneCycleLR` run in the judge.
"""
import math
import random

import pytest
import torch
from torch.utils.data import DataLoader, TensorDataset

from grader.testing import check

MAX_LR = 0.4
MIN_LR = MAX_LR / 25.0 / 1e4


def _count(mod, settings):
    """Probe: the candidate's count for each setting, as (exact type name, int value or None)."""
    import numpy

    out = []
    for args in settings:
        r = mod.optimizer_steps_per_epoch(*args)
        kind = type(r)
        exact_int = kind is int or (isinstance(r, numpy.integer) and kind.__module__ == "numpy")
        out.append((f"{kind.__module__}.{kind.__qualname__}", int(r) if exact_int else None))
    return out


def _assert_counts(got, settings, want):
    assert isinstance(got, list) and len(got) == len(settings)
    for args, (kind, value), expected in zip(settings, got, want):
        assert value is not None, \
            f"optimizer_steps_per_epoch{tuple(args)} returned a {kind}, expected a Python int"
        assert value == expected, f"optimizer_steps_per_epoch{tuple(args)} returned {value}, expected {expected}"


EXAMPLES = [((10000, 50, False), 200), ((1000, 32, False), 32), ((1000, 32, True), 31),
            ((1000, 32, False, 4), 8), ((1000, 32, True, 4), 8), ((10, 32, True), 0)]


@check("value", weight=2)
def test_steps_per_epoch_examples(sub):
    settings = [args for args, _ in EXAMPLES]
    _assert_counts(sub.probe(_count, sub, settings), settings, [n for _, n in EXAMPLES])


def _loader_steps(n, b, drop_last, accumulation):
    batches = len(DataLoader(TensorDataset(torch.zeros(n, 1)), batch_size=b, drop_last=drop_last))
    return math.ceil(batches / accumulation)


def _random_settings():
    rng = random.Random(42)
    settings = [(10, 32, False, 4), (64, 32, True, 3), (257, 256, True, 1)]   # edge cases
    while len(settings) < 50:
        settings.append((rng.randint(1, 5000), rng.randint(1, 256), rng.random() < 0.5, rng.randint(1, 6)))
    return settings


@check("value", weight=2)
def test_steps_per_epoch_matches_dataloader(sub):
    settings = _random_settings()
    want = [_loader_steps(*args) for args in settings]
    _assert_counts(sub.probe(_count, sub, settings), settings, want)


def _train(mod, runs):
    """Probe: for each run (samples, batch, drop_last, accumulation, epochs) a real accumulating
    training loop over the candidate's scheduler; the lrs (both groups) used by every optimizer
    step, and the step at which scheduler.step() raised, if it did."""
    out = {}
    for name, (n, b, drop_last, accumulation, epochs) in runs.items():
        torch.manual_seed(0)
        model = torch.nn.Linear(3, 1)
        w, bias = torch.nn.Module.parameters(model)
        opt = torch.optim.SGD([{"params": [w]}, {"params": [bias]}], lr=0.1, momentum=0.9)
        groups = object.__getattribute__(opt, "__dict__")["param_groups"]
        sched = mod.build_onecycle(opt, MAX_LR, n, b, epochs, drop_last, accumulation)
        loader = DataLoader(TensorDataset(torch.randn(n, 3)), batch_size=b, drop_last=drop_last)
        lrs, error = [], None
        for _epoch in range(epochs):
            batches = len(loader)
            for i, (x,) in enumerate(loader):
                (model(x).pow(2).mean() / accumulation).backward()
                if (i + 1) % accumulation == 0 or i + 1 == batches:
                    lrs.append([float(g["lr"]) for g in groups])
                    opt.step()
                    opt.zero_grad(set_to_none=True)
                    try:
                        sched.step()
                    except ValueError as exc:
                        error = (len(lrs), str(exc)[:200])
                        break
            if error is not None:
                break
        out[name] = {"lrs": lrs, "error": error}
    return out


def _expected(total):
    """Torch's OneCycleLR with the exact total: the lrs (both groups) used by each step."""
    w, b = torch.nn.Parameter(torch.ones(3)), torch.nn.Parameter(torch.ones(1))
    opt = torch.optim.SGD([{"params": [w]}, {"params": [b]}], lr=0.1, momentum=0.9)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=MAX_LR, total_steps=total)
    seen = []
    for _ in range(total):
        seen.append([float(g["lr"]) for g in opt.param_groups])
        opt.step()
        sched.step()
    return seen


RUNS = {"plain": (1000, 32, False, 1, 2), "drop_last": (1000, 32, True, 1, 3),
        "accumulation": (1000, 32, False, 4, 3), "drop_last_accumulation": (1000, 32, True, 4, 3)}


@check("value", weight=2)
def test_whole_run_never_raises_and_ends_at_min_lr(sub):
    got = sub.probe(_train, sub, RUNS)
    for name, (n, b, drop_last, accumulation, epochs) in RUNS.items():
        what = (f"build_onecycle(opt, {MAX_LR}, num_samples={n}, batch_size={b}, epochs={epochs}, "
                f"drop_last={drop_last}, accumulation_steps={accumulation})")
        total = epochs * _loader_steps(n, b, drop_last, accumulation)
        run = got[name]
        if run["error"] is not None:
            step, message = run["error"]
            pytest.fail(f"{what}: scheduler.step() after optimizer step {step} of {total} raised ValueError "
                        f"({message}): total_steps is smaller than the run")
        assert len(run["lrs"]) == total
        last = run["lrs"][-1]
        assert all(abs(lr - MIN_LR) <= 1e-9 * MIN_LR for lr in last), \
            (f"{what}: the last of the run's {total} optimizer steps used lr {last}, expected "
             f"max_lr/25/1e4 = {MIN_LR}: the schedule has not reached its end (total_steps too large?)")


@check("value")
def test_peak_at_pct_start(sub):
    runs = {"peak": (1000, 25, False, 2, 5)}
    got = sub.probe(_train, sub, runs)["peak"]
    total = 100
    assert got["error"] is None, f"scheduler.step() raised after optimizer step {got['error'][0]} of {total}"
    lrs = [group[0] for group in got["lrs"]]
    peak = max(range(len(lrs)), key=lrs.__getitem__)
    assert abs(peak - (round(0.3 * total) - 1)) <= 1, \
        (f"over a run of {total} optimizer steps the highest lr is used at step {peak}, expected about "
         f"{round(0.3 * total) - 1} (pct_start 0.3 of the run's optimizer steps)")
    assert abs(lrs[peak] - MAX_LR) <= 1e-9 * MAX_LR, f"the highest lr is {lrs[peak]}, expected max_lr = {MAX_LR}"
    want = _expected(total)
    assert len(got["lrs"]) == total
    for step, (g, w) in enumerate(zip(got["lrs"], want)):
        assert all(abs(a - e) <= 1e-9 * e for a, e in zip(g, w)), \
            (f"optimizer step {step} used lrs {g}, torch's OneCycleLR(optimizer, max_lr={MAX_LR}, "
             f"total_steps={total}) gives {w}")


def _built(mod, args):
    w = torch.nn.Parameter(torch.ones(3))
    opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
    groups = object.__getattribute__(opt, "__dict__")["param_groups"]
    sched = mod.build_onecycle(opt, MAX_LR, *args)
    kind = type(sched)
    onecycle = issubclass(kind, torch.optim.lr_scheduler.OneCycleLR)
    total = object.__getattribute__(sched, "__dict__").get("total_steps") if onecycle else None
    return {"type": f"{kind.__module__}.{kind.__qualname__}", "onecycle": onecycle,
            "total_steps": int(total) if type(total) is int else None, "lr": float(groups[0]["lr"])}


@check("api")
@pytest.mark.parametrize("args,total", [((1000, 32, 2, True, 4), 16), ((10000, 50, 3, False, 1), 600)],
                         ids=["accumulation", "plain"])
def test_returns_onecycle(sub, args, total):
    seen = sub.probe(_built, sub, args)
    assert seen["onecycle"], f"build_onecycle returned a {seen['type']}, expected a torch.optim.lr_scheduler.OneCycleLR"
    assert seen["total_steps"] == total, \
        f"build_onecycle(opt, {MAX_LR}, *{args}) has total_steps {seen['total_steps']}, expected {total}"
    assert abs(seen["lr"] - MAX_LR / 25) <= 1e-12, \
        f"after build_onecycle the optimizer's lr is {seen['lr']}, expected max_lr/25 = {MAX_LR / 25}"
