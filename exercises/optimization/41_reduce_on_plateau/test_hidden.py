"""Hidden checks for 41_reduce_on_plateau.

The candidate's `PlateauLR` is built and stepped inside probes, over a `torch.optim.SGD` whose
param groups are read directly (`object.__getattribute__`); the lrs after each `step(metric)` come
back as lists of floats and are compared with `torch.optim.lr_scheduler.ReduceLROnPlateau` run in
the judge on the same metrics (threshold_mode "rel", eps left at 1e-8: every lr here stays far
above it).
"""
import math

import pytest
import torch

from grader import probes
from grader.testing import assert_close, check, requires_cuda

FORBIDDEN = ["torch.optim.lr_scheduler.ReduceLROnPlateau"]


def _noisy():
    g = torch.Generator().manual_seed(41)
    noise = torch.randn(25, generator=g, dtype=torch.float64)
    return [2.0 * math.exp(-0.1 * t) + 0.3 * float(noise[t]) for t in range(25)]


# name: (param group lrs, constructor kwargs, metrics)
SEQUENCES = {
    "defaults_flat": ((0.1,), {}, [1.0] * 24),
    "tiny_improvements": ((0.1,), {"factor": 0.5, "patience": 1, "threshold": 1e-2},
                          [100.0, 99.5, 99.2, 98.9, 98.0, 97.5, 97.2, 96.0, 95.5, 95.3, 95.2, 90.0, 89.5, 89.4]),
    "max_mode": ((0.1, 0.02), {"mode": "max", "factor": 0.5, "patience": 1, "threshold": 1e-2},
                 [0.5, 0.6, 0.603, 0.605, 0.61, 0.7, 0.705, 0.706, 0.71, 0.8, 0.801, 0.802, 0.79]),
    "noisy": ((0.1,), {"factor": 0.3, "patience": 2, "threshold": 1e-3, "cooldown": 1}, _noisy()),
    "negative": ((0.1,), {"factor": 0.5, "patience": 1, "threshold": 1e-2},
                 [-1.0, -1.0, -1.0, -1.0, -0.98, -0.97, -0.96, -1.5, -1.49, -1.48, -1.47]),
    "cooldown_improves": ((0.1,), {"factor": 0.5, "patience": 1, "cooldown": 2},
                          [1.0, 1.0, 1.0, 1.0, 0.5, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8]),
    "diverged_start": ((0.1,), {"factor": 0.5, "patience": 1, "threshold": 0.0},
                       [math.inf, math.inf, math.nan, 5.0, 5.0, 5.0, 4.0, 4.0]),
    "zero_threshold_max": ((0.1,), {"mode": "max", "factor": 0.5, "patience": 1, "threshold": 0.0},
                           [0.5, 0.5, 0.5, 0.6, 0.6, 0.6, 0.7]),
}


def _lrs(make, bases, kwargs, metrics, mode="float"):
    """Build SGD over one parameter per group, a scheduler `make(opt, **kwargs)`, step it once per
    metric and return every group's lr after each step. Runs in the judge (make=torch's
    ReduceLROnPlateau) and in the worker (make=the candidate's PlateauLR)."""
    params = [torch.nn.Parameter(torch.ones(2, dtype=torch.float64)) for _ in bases]
    opt = torch.optim.SGD([{"params": [p], "lr": b} for p, b in zip(params, bases)], lr=bases[0])
    groups = object.__getattribute__(opt, "__dict__")["param_groups"]
    sched = make(opt, **kwargs)
    seen = []
    for m in metrics:
        sched.step(m)
        seen.append([float(g["lr"]) for g in groups])
    return seen, sched


def _candidate(mod, cases):
    return {name: _lrs(mod.PlateauLR, *case)[0] for name, case in cases.items()}


def _torch(cases):
    return {name: _lrs(torch.optim.lr_scheduler.ReduceLROnPlateau, *case)[0] for name, case in cases.items()}


def _same(got, want, what):
    assert isinstance(got, list) and len(got) == len(want), f"{what}: {len(got)} epochs recorded, expected {len(want)}"
    for epoch, (g, w) in enumerate(zip(got, want)):
        assert len(g) == len(w), f"{what}: after step {epoch} (0-based) the lrs are {g}, torch's ReduceLROnPlateau gives {w}"
        # float64's documented tolerances (atol 1e-8, rtol 1e-7): every wrong reduction is off by far more
        assert_close(torch.tensor(g, dtype=torch.float64), torch.tensor(w, dtype=torch.float64),
                     what=f"{what}: the lrs of the param groups after step {epoch} (0-based), against torch's "
                          f"ReduceLROnPlateau ({w})")


@check("value", weight=3)
def test_matches_torch_on_scripted_sequences(sub):
    got = sub.probe(_candidate, sub, SEQUENCES)
    want = _torch(SEQUENCES)
    for name, (bases, kwargs, _metrics) in SEQUENCES.items():
        _same(got[name], want[name], f"sequence {name!r} (PlateauLR(opt, **{kwargs}), group lrs {bases})")


@check("value", weight=2)
def test_patience_is_strict(sub):
    case = {"p2": ((0.1,), {"factor": 0.5, "patience": 2}, [1.0] * 7)}
    got = sub.probe(_candidate, sub, case)["p2"]
    want = [[0.1]] * 3 + [[0.05]] * 3 + [[0.025]]
    _same(got, want, "patience=2 on a flat metric (the 1st step sets best, steps 1 and 2 are bad and wait, "
                     "step 3 is the 3rd consecutive bad epoch and reduces)")


@check("value", weight=2)
def test_min_lr_and_cooldown(sub):
    cases = {"floor": ((0.1, 0.04, 0.005), {"factor": 0.5, "patience": 0, "min_lr": 0.01}, [1.0] * 8),
             "cooldown": ((0.1,), {"factor": 0.5, "patience": 0, "cooldown": 2}, [1.0] * 10)}
    got = sub.probe(_candidate, sub, cases)
    want = _torch(cases)
    for epoch in got["floor"]:
        assert min(epoch[:2]) >= 0.01 - 1e-15, f"with min_lr=0.01 a group's lr fell to {min(epoch[:2])}"
    assert all(abs(e[2] - 0.005) <= 1e-15 for e in got["floor"]), \
        "a group that starts below min_lr keeps its lr (a reduction never raises an lr)"
    _same(got["floor"], want["floor"], "min_lr=0.01 with three groups (lrs 0.1, 0.04, 0.005), patience 0")
    _same(got["cooldown"], want["cooldown"], "cooldown=2, patience 0 on a flat metric")


def _tensor_metrics(values, device="cpu"):
    """0-dim tensors of several kinds: float32, float64, and a loss that requires grad."""
    w = torch.nn.Parameter(torch.tensor(1.0, dtype=torch.float64, device=device))
    out = []
    for i, v in enumerate(values):
        if i % 3 == 0:
            out.append(torch.tensor(v, dtype=torch.float32, device=device))
        elif i % 3 == 1:
            out.append(torch.tensor(v, dtype=torch.float64, device=device))
        else:
            out.append(w * v)                  # a loss straight from the graph
    return out


TENSOR_CASE = ((0.1,), {"factor": 0.5, "patience": 1, "threshold": 1e-2},
               [3.0, 2.5, 2.49, 2.48, 2.0, 1.99, 1.985, 1.981, 1.5])


def _tensor_run(mod, device):
    from grader import probes

    bases, kwargs, values = TENSOR_CASE
    seen, sched = _lrs(mod.PlateauLR, bases, kwargs, _tensor_metrics(values, device))
    return seen, probes.graph_holders(mod, sched)


def _tensor_expected(device="cpu"):
    bases, kwargs, values = TENSOR_CASE
    metrics = [float(m.detach()) for m in _tensor_metrics(values, "cpu")]
    return _lrs(torch.optim.lr_scheduler.ReduceLROnPlateau, bases, kwargs, metrics)[0]


@check("dtype")
def test_tensor_metric(sub):
    got, holders = sub.probe(_tensor_run, sub, "cpu")
    _same(got, _tensor_expected(), "0-dim tensor metrics (float32, float64, a loss that requires grad)")
    assert not holders, f"the scheduler keeps the metric's autograd graph in {holders[:3]}: convert it with float()"


@check("dtype")
@requires_cuda
def test_cuda_tensor_metric(sub):
    got, holders = sub.probe(_tensor_run, sub, "cuda")
    _same(got, _tensor_expected(), "0-dim CUDA tensor metrics")
    assert not holders, f"the scheduler keeps the metric's autograd graph in {holders[:3]}: convert it with float()"


ROUND_TRIP = ((0.1, 0.03), {"factor": 0.5, "patience": 3, "cooldown": 2, "threshold": 1e-2},
              [5.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 3.99, 4.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 2.0])


def _round_trip(mod, cut):
    import copy

    bases, kwargs, metrics = ROUND_TRIP

    def build():
        params = [torch.nn.Parameter(torch.ones(2, dtype=torch.float64)) for _ in bases]
        opt = torch.optim.SGD([{"params": [p], "lr": b} for p, b in zip(params, bases)], lr=bases[0])
        return opt, mod.PlateauLR(opt, **kwargs)

    opt, sched = build()
    for m in metrics[:cut]:
        sched.step(m)
    saved_opt, saved_sched = copy.deepcopy(opt.state_dict()), copy.deepcopy(sched.state_dict())
    del opt, sched
    opt2, sched2 = build()
    opt2.load_state_dict(saved_opt)
    sched2.load_state_dict(saved_sched)
    groups = object.__getattribute__(opt2, "__dict__")["param_groups"]
    seen = []
    for m in metrics[cut:]:
        sched2.step(m)
        seen.append([float(g["lr"]) for g in groups])
    return seen


@check("state", weight=2)
@pytest.mark.parametrize("cut", [4, 6], ids=["mid_plateau", "in_cooldown"])
def test_state_dict_round_trip(sub, cut):
    got = sub.probe(_round_trip, sub, cut)
    want = _lrs(torch.optim.lr_scheduler.ReduceLROnPlateau, *ROUND_TRIP)[0][cut:]
    _same(got, want, f"after state_dict() -> load_state_dict() into a fresh optimizer and PlateauLR at step {cut}")


@check("api")
def test_no_torch_reduce_on_plateau(sub):
    sub.static.require_implemented("PlateauLR.__init__", "PlateauLR.step")
    for api in FORBIDDEN:
        lines = sub.static.uses(api)
        assert not lines, f"the solution uses {api} (line {lines[0]}): write the logic yourself"

    def guarded(mod, cases):
        with probes.forbid("torch.optim.lr_scheduler.ReduceLROnPlateau.__init__",
                           "torch.optim.lr_scheduler.ReduceLROnPlateau.step",
                           "torch.optim.lr_scheduler.ReduceLROnPlateau._reduce_lr", module=mod) as seen:
            try:
                out = _candidate(mod, cases)
            except probes.ForbiddenAPIError:
                out = None
        return seen.names(), out

    cases = {"noisy": SEQUENCES["noisy"]}
    called, got = sub.probe(guarded, sub, cases)
    assert not called, f"PlateauLR called {sorted(set(called))}: write the logic yourself"
    _same(got["noisy"], _torch(cases)["noisy"], "PlateauLR under the runtime guard")
