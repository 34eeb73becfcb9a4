"""Hidden checks for 67_amp_gradscaler_step.

Every step runs in a probe over a model, optimizer and scaler built there (the candidate's code gets
real torch objects; what it did is read from torch's registries and from hooks, never from an
object it could override). On a CPU host:

- the call order is recorded by a duck-typed spy scaler (GradScaler(enabled=False) semantics) with
  the gradient norm seen at `unscale_` and `step` (scale 1: clipped gradients show at `step`);
  where the clip stands relative to `unscale_` is graded by the update with the real scaler;
- the value checks use the real `torch.amp.GradScaler("cpu")` (scale 65536) with bf16 autocast and
  plain SGD: a clip on scaled gradients, a step that bypasses the scaler or stale gradients
  change the update far beyond bf16's tolerance; an injected `inf` must skip the step.

The CUDA checks (`@requires_cuda`) repeat the dtype, value and inf checks with float16 and
`torch.amp.GradScaler("cuda")`, and check where AdamW's state lives.
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

from grader.testing import check, requires_cuda

LR = 0.1
STALE = 1e3  # every .grad is pre-filled with this before the step: the step must zero them
# CUDA's float16 gradients of this problem reach about 0.5 x scale (the last bias sums 64 same-sign
# terms), so a 65536 start would overflow and skip the first step; 4096 cannot, and a clip before
# unscale_ still shrinks the update about 4x
CUDA_SCALE = 2.0 ** 12


def _loss(out, target):
    """MSE plus a term on the prediction alone: loss_fn(prediction, target) is not symmetric."""
    return F.mse_loss(out, target) + 0.1 * out.float().pow(2).mean()


def _problem(seed=67):
    """A small Tanh MLP (bf16 error on its gradients stays under 1 %), inputs and targets."""
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 4))
    x, y = torch.randn(64, 8), torch.randn(64, 4) + 1.0
    return model, x, y


def _fp32_reference(model, x, y, max_norm):
    """(loss, gradient norm, update per parameter) of one fp32 SGD step, computed in the judge."""
    import copy

    model = copy.deepcopy(model)
    params = list(model.parameters())
    loss = _loss(model(x), y)
    grads = torch.autograd.grad(loss, params)
    norm = float(torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in grads])))
    coef = min(1.0, max_norm / (norm + 1e-6)) if max_norm is not None else 1.0
    return float(loss.detach()), norm, [-LR * coef * g for g in grads]


def _step(mod, model, x, y, scaler_kind, max_norm, dtype, stale, device="cpu", optimizer="sgd",
          inject_inf=False, init_scale=2.0 ** 16):
    """One amp_train_step over `model` moved to `device`, with a real or disabled GradScaler (or
    none), stale grads pre-filled; returns plain data: the result, the params before and after,
    the grads' dtypes/devices, the scale before and after, the Linear output dtypes and the
    autocast state seen inside forward and loss_fn."""
    from grader import probes

    nn.Module.to(model, device)
    x, y = x.to(device), y.to(device)
    named = probes.named_parameters(model)
    params = list(named.values())
    before = [p.detach().cpu().clone() for p in params]
    if stale:
        for p in params:
            p.grad = torch.full_like(p, stale)
    if optimizer == "sgd":
        opt = torch.optim.SGD(params, lr=0.1)
    else:
        opt = torch.optim.AdamW(params, lr=1e-3)
    if scaler_kind == "real":
        scaler = torch.amp.GradScaler(torch.device(device).type, init_scale=init_scale)
    else:
        scaler = torch.amp.GradScaler(torch.device(device).type, enabled=False)
    kind = torch.device(device).type
    seen = {"linear": [], "forward_autocast": [], "loss_autocast": []}
    handles = []
    for _name, sub in probes.modules(model):
        if isinstance(sub, nn.Linear):
            handles.append(nn.Module.register_forward_hook(
                sub, lambda m, a, out: seen["linear"].append(str(out.dtype))))
    handles.append(nn.Module.register_forward_hook(model, lambda m, a, out: seen["forward_autocast"].append(
        (torch.is_autocast_enabled(kind), str(torch.get_autocast_dtype(kind))))))
    if inject_inf:
        first = params[0]

        def poison(g):
            g = g.clone()
            g.view(-1)[0] = float("inf")
            return g

        handles.append(first.register_hook(poison))

    def loss_fn(out, target):
        seen["loss_autocast"].append((torch.is_autocast_enabled(kind), str(torch.get_autocast_dtype(kind))))
        return _loss(out, target)

    scale_before = float(scaler.get_scale())
    try:
        result = mod.amp_train_step(model, x, y, loss_fn, opt, scaler, max_norm=max_norm, dtype=dtype)
    finally:
        for h in handles:
            h.remove()
    state = []
    for p in params:
        for key, value in opt.state.get(p, {}).items():
            if isinstance(value, torch.Tensor):
                state.append((key, value.device.type, str(value.dtype)))
    return {
        "result": result if isinstance(result, (bool, int, float)) else f"<{type(result).__name__}>",
        "before": before,
        "after": [p.detach().cpu().clone() for p in params],
        "params": [(p.device.type, str(p.dtype)) for p in params],
        "grads": [None if p.grad is None else (p.grad.device.type, str(p.grad.dtype)) for p in params],
        "grad_graph": [p.grad is not None and (p.grad.requires_grad or p.grad.grad_fn is not None) for p in params],
        "scale": (scale_before, float(scaler.get_scale())),
        "state": state, **seen}


def _steps(mod, model, x, y, runs):
    """`_step` for each argument tuple of `runs`, each on its own copy of `model`: one worker, one
    round trip for several observations."""
    import copy

    return [_step(mod, copy.deepcopy(model), x, y, *run) for run in runs]


def _update_error(seen, update_ref):
    """Largest relative error (norm of the difference over the reference's norm) per parameter."""
    worst = 0.0
    for b, a, ref in zip(seen["before"], seen["after"], update_ref):
        delta = (a - b).double()
        if not torch.isfinite(delta).all():
            return math.inf
        worst = max(worst, float(torch.linalg.vector_norm(delta - ref.double()) / torch.linalg.vector_norm(ref.double())))
    return worst


def _is_float(result):
    return isinstance(result, float) and not isinstance(result, bool)


# --- call order: a duck-typed spy scaler -----------------------------------------------------------

def _order(mod, model, x, y, max_norm):
    """The events of one step with a recording scaler that behaves like GradScaler(enabled=False):
    forward, loss, scale, backward (through the tensor scale returned), unscale_, step,
    optimizer.step, update; unscale_ and step carry the gradient norm they saw."""
    from grader import probes

    params = list(probes.named_parameters(model).values())
    opt = torch.optim.SGD(params, lr=0.1)
    log = []

    def norm():
        gs = [p.grad.detach().float() for p in params if p.grad is not None]
        return float(torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in gs]))) if gs else None

    class SpyScaler:
        def scale(self, outputs):
            log.append(["scale"])
            if isinstance(outputs, torch.Tensor):
                scaled = outputs * 1.0  # a new tensor: only a backward through it is seen
                if scaled.requires_grad:
                    scaled.register_hook(lambda g: log.append(["backward"]))
                return scaled
            return outputs

        def unscale_(self, optimizer):
            log.append(["unscale_", norm(), optimizer is opt])

        def step(self, optimizer, *args, **kwargs):
            log.append(["step", norm(), optimizer is opt])
            return optimizer.step(*args, **kwargs)

        def update(self, new_scale=None):
            log.append(["update"])

        def get_scale(self):
            return 1.0

        def is_enabled(self):
            return True

    original_step = opt.step

    def recorded_step(*args, **kwargs):
        log.append(["optimizer.step"])
        return original_step(*args, **kwargs)

    opt.step = recorded_step
    handle = nn.Module.register_forward_hook(model, lambda m, a, out: log.append(["forward"]))

    def loss_fn(out, target):
        log.append(["loss"])
        return _loss(out, target)

    try:
        result = mod.amp_train_step(model, x, y, loss_fn, opt, SpyScaler(), max_norm=max_norm, dtype=torch.bfloat16)
    finally:
        handle.remove()
    return log, result if isinstance(result, (bool, int, float)) else f"<{type(result).__name__}>"


def _orders(mod, model, x, y, max_norms):
    import copy

    return [_order(mod, copy.deepcopy(model), x, y, m) for m in max_norms]


@check("api", weight=2)
def test_call_order(sub):
    model, x, y = _problem()
    _, norm, _ = _fp32_reference(model, x, y, None)
    runs = sub.probe(_orders, sub, model, x, y, [None, norm / 4])
    for clip, (log, result) in zip((False, True), runs):
        max_norm = norm / 4 if clip else None
        names = [e[0] for e in log]
        want = ["forward", "loss", "scale", "backward", "step", "optimizer.step", "update"]
        # unscale_ is optional, with or without max_norm: a clip of the scaled gradients at
        # max_norm * scaler.get_scale() is right too (alternatives/clip_scaled_gradients.py); where
        # the clip stands relative to unscale_ is graded by the update (test_update_matches_fp32)
        allowed = [want, want[:4] + ["unscale_"] + want[4:]]
        assert _is_float(result), f"amp_train_step returned {result!r}, expected a Python float"
        assert names in allowed, (
            f"with max_norm={'None' if not clip else f'{max_norm:.3f}'} the calls were {names}; expected {want} "
            f"(each once, unscale_ optional before step; 'backward' is a backward pass through "
            f"the tensor scaler.scale returned)")
        events = {e[0]: e for e in log}
        assert events["step"][2], "scaler.step was not given the optimizer"
        seen_at_step = events["step"][1]
        if "unscale_" in events:
            assert events["unscale_"][2], "scaler.unscale_ was not given the optimizer"
        if clip:
            assert seen_at_step is not None and seen_at_step <= max_norm * 1.01, (
                f"with a scaler of scale 1, scaler.step saw a gradient norm of {seen_at_step}, above "
                f"max_norm={max_norm:.3f}: the gradients were not clipped before the step")
        else:
            assert seen_at_step is not None and abs(seen_at_step - norm) <= 0.05 * norm, (
                f"without max_norm scaler.step saw a gradient norm of {seen_at_step}, expected the unclipped {norm:.3f}")


# --- dtypes and autocast -------------------------------------------------------------------------

@check("dtype", weight=2)
def test_autocast_dtypes_cpu(sub):
    model, x, y = _problem()
    dtypes = (torch.bfloat16, torch.float16)
    runs = sub.probe(_steps, sub, model, x, y, [("disabled", None, dtype, STALE) for dtype in dtypes])
    for dtype, seen in zip(dtypes, runs):
        assert _is_float(seen["result"]), f"amp_train_step returned {seen['result']}, expected a Python float"
        want = str(dtype)
        assert seen["linear"] == [want, want], (
            f"with dtype={want} on the CPU the Linear layers produced {seen['linear']}: run the forward under "
            f"torch.autocast(x.device.type, dtype=dtype)")
        assert seen["params"] == [("cpu", "torch.float32")] * 4, \
            f"the parameters became {seen['params']}: autocast keeps float32 weights (never .half() the model)"
        assert seen["grads"] == [("cpu", "torch.float32")] * 4, f"the gradients are {seen['grads']}, expected float32"
        assert not any(seen["grad_graph"]), \
            f"the gradients carry an autograd graph ({seen['grad_graph']}): backward without create_graph"


# The deprecated classes' own code (torch.cpu.amp / torch.cuda.amp): the spy's call watch sees it
# run whatever reference reached the class (`getattr(torch, "cpu").amp.autocast`, an alias, one
# kept from import), since every route constructs and enters an instance of that class.
DEPRECATED_AMP = tuple(f"torch.{kind}.amp.{name}" for kind in ("cpu", "cuda") for name in (
    "autocast.__init__", "autocast.__enter__", "autocast.__call__", "GradScaler.__init__"))


def _step_watched(mod, model, x, y, dtype, targets, device="cpu"):
    """`_step` (disabled scaler) with the deprecated AMP classes watched: (its data, what ran)."""
    from grader import probes

    with probes.spy(*targets, module=mod) as seen:
        out = _step(mod, model, x, y, "disabled", None, dtype, STALE, device=device)
    return out, seen.names()


@check("api")
def test_autocast_used(sub):
    sub.static.require_implemented("amp_train_step")
    model, x, y = _problem()
    seen, deprecated = sub.probe(_step_watched, sub, model, x, y, torch.bfloat16, DEPRECATED_AMP)
    assert _is_float(seen["result"]), f"amp_train_step returned {seen['result']}, expected a Python float"
    want = [(True, "torch.bfloat16")]
    assert seen["forward_autocast"] == want, \
        f"inside model's forward, CPU autocast (enabled, dtype) was {seen['forward_autocast']}, expected {want}"
    assert seen["loss_autocast"] == want, \
        f"inside loss_fn, CPU autocast (enabled, dtype) was {seen['loss_autocast']}: compute the loss under autocast too"
    if torch.cuda.is_available():  # the CUDA branch too, where there is one to run
        deprecated += sub.probe(_step_watched, sub, model, x, y, torch.float16, DEPRECATED_AMP, "cuda")[1]
    # at run time (authoritative: a name built with getattr reaches the same classes)
    assert not deprecated, (f"deprecated AMP API at run time: {sorted(set(deprecated))}; use "
                            "torch.autocast(device_type, dtype=...) and torch.amp.GradScaler")
    # and in the source (a secondary reason: a branch the run did not take)
    found = [f"{api} (line {line})" for api in ("torch.cuda.amp", "torch.cpu.amp") for line in sub.static.uses(api)]
    assert not found, f"deprecated AMP API: {found}; use torch.autocast(device_type, dtype=...) and torch.amp.GradScaler"


@check("dtype")
def test_returns_float(sub):
    model, x, y = _problem()
    loss, _, _ = _fp32_reference(model, x, y, None)
    seen = sub.probe(_step, sub, model, x, y, "real", None, torch.bfloat16, STALE)
    result = seen["result"]
    assert _is_float(result), f"amp_train_step returned {result!r}, expected a Python float (loss.item())"
    assert abs(result - loss) <= 2e-2 * abs(loss), \
        f"returned {result}, but the (unscaled) loss before the step is {loss:.5f}"


# --- values: the real GradScaler on the CPU ------------------------------------------------------------

@check("value", weight=2)
def test_update_matches_fp32(sub):
    # the real GradScaler('cpu') (scale 65536) without a clip, with an inactive one (1e3) and an
    # active one (norm / 4); a disabled scaler with the active clip
    model, x, y = _problem()
    _, norm, _ = _fp32_reference(model, x, y, None)
    configs = [("real", None), ("real", 1e3), ("real", norm / 4), ("disabled", norm / 4)]
    runs = sub.probe(_steps, sub, model, x, y, [(kind, max_norm, torch.bfloat16, STALE) for kind, max_norm in configs])
    for (scaler_kind, max_norm), seen in zip(configs, runs):
        assert _is_float(seen["result"]), f"amp_train_step returned {seen['result']}, expected a Python float"
        _, _, update = _fp32_reference(model, x, y, max_norm)
        error = _update_error(seen, update)
        scaler = "torch.amp.GradScaler('cpu', init_scale=65536)" if scaler_kind == "real" else "GradScaler(enabled=False)"
        assert error <= 2e-2, (
            f"with {scaler}, bf16 autocast, SGD(lr={LR}) and max_norm={max_norm}: the parameter update is {error:.3g} "
            f"(relative) away from an fp32 step (tolerance 2e-2); the .grad fields held {STALE} before the call")


@check("grad", weight=2)
def test_inf_grad_skips_step(sub):
    model, x, y = _problem()
    runs = sub.probe(_steps, sub, model, x, y, [("real", m, torch.bfloat16, STALE, "cpu", "sgd", True) for m in (None, 1.0)])
    for max_norm, seen in zip((None, 1.0), runs):
        assert _is_float(seen["result"]) and math.isfinite(seen["result"]), \
            f"amp_train_step returned {seen['result']}, expected the (finite) loss as a Python float"
        changed = [i for i, (b, a) in enumerate(zip(seen["before"], seen["after"])) if not torch.equal(b, a)]
        assert not changed, (f"with max_norm={max_norm} a gradient held inf, yet parameters {changed} changed: the "
                             "step must go through scaler.step, which skips it")
        assert seen["scale"] == (65536.0, 32768.0), \
            f"the scale went {seen['scale'][0]} -> {seen['scale'][1]}; after an inf step scaler.update() halves it"


# --- CUDA ----------------------------------------------------------------------------------------------

@requires_cuda
@check("dtype")
def test_autocast_dtypes_cuda(sub):
    model, x, y = _problem()
    seen = sub.probe(_step, sub, model, x, y, "real", None, torch.float16, STALE, "cuda", "sgd", False, CUDA_SCALE)
    assert seen["linear"] == ["torch.float16"] * 2, f"on CUDA the Linear layers produced {seen['linear']}"
    assert seen["params"] == [("cuda", "torch.float32")] * 4, f"the parameters became {seen['params']}"
    assert seen["grads"] == [("cuda", "torch.float32")] * 4, f"the gradients are {seen['grads']}"


@requires_cuda
@check("value", weight=2)
def test_update_matches_fp32_cuda(sub):
    # plain SGD: Adam-style optimizers hardly see a uniform rescaling of the grads
    model, x, y = _problem()
    _, _, update = _fp32_reference(model, x, y, 1e3)
    seen = sub.probe(_step, sub, model, x, y, "real", 1e3, torch.float16, STALE, "cuda", "sgd", False, CUDA_SCALE)
    error = _update_error(seen, update)
    assert error <= 1e-2, (
        f"with torch.amp.GradScaler('cuda', init_scale=4096), float16 and max_norm=1e3 (inactive) the update is "
        f"{error:.3g} (relative) away from an fp32 step: a clip before unscale_ shrinks it about 4x")


@requires_cuda
@check("grad")
def test_inf_grad_skips_step_cuda(sub):
    model, x, y = _problem()
    seen = sub.probe(_step, sub, model, x, y, "real", None, torch.float16, STALE, "cuda", "sgd", True, CUDA_SCALE)
    changed = [i for i, (b, a) in enumerate(zip(seen["before"], seen["after"])) if not torch.equal(b, a)]
    assert not changed, f"a gradient held inf, yet parameters {changed} changed"
    assert seen["scale"] == (CUDA_SCALE, CUDA_SCALE / 2), f"the scale went {seen['scale'][0]} -> {seen['scale'][1]}"


@requires_cuda
@check("device")
def test_adamw_state_on_cuda(sub):
    model, x, y = _problem()
    seen = sub.probe(_step, sub, model, x, y, "real", 1.0, torch.float16, STALE, "cuda", "adamw", False, CUDA_SCALE)
    assert _is_float(seen["result"]), f"amp_train_step returned {seen['result']}"
    assert seen["params"] == [("cuda", "torch.float32")] * 4 and seen["grads"] == [("cuda", "torch.float32")] * 4, \
        f"params {seen['params']}, grads {seen['grads']}"
    # AdamW keeps its `step` counter on the CPU unless capturable/fused: only the moments are checked
    moments = [s for s in seen["state"] if s[0] != "step"]
    assert len(moments) == 8 and all(s[1:] == ("cuda", "torch.float32") for s in moments), \
        f"AdamW's state tensors: {seen['state']}"
    assert not any(torch.equal(b, a) for b, a in zip(seen["before"], seen["after"])), "AdamW did not step"
