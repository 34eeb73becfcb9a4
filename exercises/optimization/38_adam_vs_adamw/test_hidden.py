"""Hidden checks for 38_adam_vs_adamw.

`adam_update` mutates its arguments, so every call runs inside a probe over tensors the probe owns;
the param, the grad and the state come back as data. Expected values come from
`torch.optim.Adam` / `torch.optim.AdamW` stepped in the judge on the same values (float64).
"""
import pytest
import torch

from grader import probes
from grader.testing import assert_close, check, requires_cuda

LR = 1e-2


def _grads(n, shape=(5, 4), seed=38):
    """Gradients of mixed magnitudes (1e-3 .. 1): small ones show where eps goes."""
    g = torch.Generator().manual_seed(seed)
    scale = 10 ** (-3 * torch.rand(shape, generator=g, dtype=torch.float64))
    return [torch.randn(shape, generator=g, dtype=torch.float64) * scale for _ in range(n)]


def _start(shape=(5, 4)):
    g = torch.Generator().manual_seed(83)
    return torch.randn(shape, generator=g, dtype=torch.float64)


def _run(mod, param, grads, kwargs, state=None, parameter=False):
    """Probe: call adam_update once per grad on the probe's own param (an nn.Parameter that
    requires grad when `parameter`); what it did, as data."""
    state = {} if state is None else state
    if parameter:
        param = torch.nn.Parameter(param)
    trajectory, intact, results = [], [], []
    for grad in grads:
        kept = grad.clone()
        results.append(type(mod.adam_update(param, grad, state, **kwargs)).__name__)
        intact.append(torch.equal(grad, kept))
        trajectory.append(param.detach().clone())
    keys = {k: (v.detach().clone() if isinstance(v, torch.Tensor) else v) for k, v in state.items()}
    return {"params": trajectory, "intact": intact, "results": results, "state": keys}


def _torch(param, grads, kwargs):
    """The expected trajectory and final state from torch's own optimizer, in the judge."""
    kwargs = dict(kwargs)
    cls = torch.optim.AdamW if kwargs.pop("decoupled", False) else torch.optim.Adam
    p = torch.nn.Parameter(param.clone())
    opt = cls([p], **kwargs)
    trajectory = []
    for grad in grads:
        p.grad = grad.clone()
        opt.step()
        trajectory.append(p.detach().clone())
    return trajectory, opt.state[p]


def _compare(seen, want, what, atol=1e-6):
    assert seen["results"] and set(seen["results"]) == {"NoneType"}, \
        f"adam_update returned {seen['results'][0]}: it updates param in place and returns None"
    for step, (got, expected) in enumerate(zip(seen["params"], want)):
        assert_close(got, expected, atol=atol, rtol=0, what=f"{what}: param after step {step + 1}")


CASES = [(False, 0.0), (False, 0.1), (True, 0.0), (True, 0.1)]


@check("value", weight=3)
@pytest.mark.parametrize("decoupled,wd", CASES, ids=["adam", "adam-l2", "adamw-nodecay", "adamw"])
def test_matches_torch_adam(sub, decoupled, wd):
    param, grads = _start(), _grads(20)
    kwargs = {"lr": LR, "weight_decay": wd, "decoupled": decoupled}
    seen = sub.probe(_run, sub, param, grads, kwargs)
    want, _ = _torch(param, grads, kwargs)
    cls = "AdamW" if decoupled else "Adam"
    _compare(seen, want, f"20 steps vs torch.optim.{cls}(lr={LR}, weight_decay={wd})")


@check("value")
@pytest.mark.parametrize("decoupled,wd", [(True, 0.05), (False, 1.0)], ids=["adamw", "adam-l2-1.0"])
def test_betas_and_eps_are_used(sub, decoupled, wd):
    param, grads = _start(), _grads(10, seed=7)
    kwargs = {"lr": 5e-3, "betas": (0.5, 0.9), "eps": 1e-4, "weight_decay": wd, "decoupled": decoupled}
    seen = sub.probe(_run, sub, param, grads, kwargs)
    want, _ = _torch(param, grads, kwargs)
    _compare(seen, want, f"10 steps vs torch.optim.{'AdamW' if decoupled else 'Adam'}(lr=5e-3, betas=(0.5, 0.9), "
                         f"eps=1e-4, weight_decay={wd})")


@check("value", weight=2)
def test_first_step_decay_difference(sub):
    param = torch.tensor([[3.0, -0.2, 50.0], [-7.0, 0.5, -0.1]], dtype=torch.float64)
    zero = torch.zeros_like(param)
    wd = 0.1
    adamw = sub.probe(_run, sub, param, [zero], {"lr": LR, "weight_decay": wd, "decoupled": True})
    assert set(adamw["results"]) == {"NoneType"}, "adam_update must update param in place and return None"
    assert_close(adamw["params"][0], param * (1 - LR * wd), atol=1e-6, rtol=0,  # the contract's atol 1e-6
                 what="AdamW's first step with a zero gradient (param * (1 - lr * wd))")
    adam = sub.probe(_run, sub, param, [zero], {"lr": LR, "weight_decay": wd, "decoupled": False})
    moved = adam["params"][0] - param
    assert_close(moved, -LR * torch.sign(param), atol=0, rtol=1e-3,
                 what="Adam's first step with a zero gradient and L2 (about -lr * sign(param), whatever its size)")


@check("value")
def test_bias_correction(sub):
    param = _start()
    g = torch.Generator().manual_seed(11)
    grad = torch.sign(torch.randn(param.shape, generator=g)) * 10 ** (-2 * torch.rand(param.shape, generator=g))
    grad = grad.to(torch.float64)        # |grad| from 0.01 to 1: far above eps
    seen = sub.probe(_run, sub, param, [grad], {"lr": LR})
    assert set(seen["results"]) == {"NoneType"}, "adam_update must update param in place and return None"
    moved = seen["params"][0] - param
    assert_close(moved, -LR * torch.sign(grad), atol=0, rtol=1e-3,
                 what="the first step with wd = 0 (bias-corrected: every element moves by about lr)")


@check("state", weight=2)
def test_state_created_and_counted(sub):
    param = _start((3, 2)).to(torch.float32)
    grads = [g.to(torch.float32) for g in _grads(3, (3, 2))]
    seen = sub.probe(_run, sub, param, grads, {"lr": LR, "weight_decay": 0.1})
    _, want = _torch(param, grads, {"lr": LR, "weight_decay": 0.1})
    state = seen["state"]
    assert {"step", "exp_avg", "exp_avg_sq"} <= set(state), \
        f"after three calls on an empty dict the state holds {sorted(state)}, expected 'step', 'exp_avg', 'exp_avg_sq'"
    step = state["step"]
    value = step.item() if isinstance(step, torch.Tensor) and step.numel() == 1 else step
    assert isinstance(value, (int, float)) and not isinstance(value, bool) and value == 3, \
        f"state['step'] is {step!r} after three calls, expected 3"
    for key in ("exp_avg", "exp_avg_sq"):
        t = state[key]
        assert isinstance(t, torch.Tensor), f"state[{key!r}] is not a tensor"
        assert (tuple(t.shape), t.dtype) == ((3, 2), torch.float32), \
            f"state[{key!r}] is {t.dtype} {tuple(t.shape)}, expected float32 (3, 2) like the param"
        assert_close(t, want[key], what=f"state[{key!r}] after three steps (as torch.optim.Adam keeps it)")


@check("grad", weight=2)
@pytest.mark.parametrize("decoupled", [False, True], ids=["adam-l2", "adamw"])
def test_grad_left_untouched(sub, decoupled):
    param, grads = _start(), _grads(3)
    kwargs = {"lr": LR, "weight_decay": 0.1, "decoupled": decoupled}
    seen = sub.probe(_run, sub, param, grads, kwargs, None, True)
    want, _ = _torch(param, grads, kwargs)
    _compare(seen, want, "3 steps with weight decay on an nn.Parameter that requires grad")
    assert all(seen["intact"]), "adam_update changed the grad it was given: add the L2 term to a copy"


# torch.optim's fused Adam/AdamW kernels (every overload: in place, functional, tensor lr, out=)
FUSED_OPS = tuple(f"{op}.{overload}" if overload else op for op, overloads in (
    ("_fused_adam_", ("", "tensor_lr")), ("_fused_adamw_", ("", "tensor_lr")),
    ("_fused_adam", ("", "out", "tensor_lr", "tensor_lr_out")),
    ("_fused_adamw", ("", "out", "tensor_lr", "tensor_lr_out"))) for overload in overloads)


@check("api")
def test_no_torch_optim(sub):
    sub.static.require_implemented("adam_update")
    lines = sub.static.uses("torch.optim")
    assert not lines, f"the solution uses torch.optim (line {lines[0]}): write the update yourself"
    foreach = sorted({line for dotted, line in sub.static.references() if "._foreach_" in dotted
                      or dotted.startswith("_foreach_")})
    assert not foreach, f"the solution uses torch._foreach_* (line {foreach[0]}): write the update yourself"

    def guarded(mod, param, grads, kwargs):
        targets = ["torch.optim.Adam.step", "torch.optim.AdamW.step", "torch.optim.Adam.__init__",
                   "torch.optim.adam.adam", "torch.optim.adam._single_tensor_adam",
                   "torch.optim.adam._multi_tensor_adam", "torch.optim._functional.adam",
                   "torch.optim._functional.adamw"]
        targets += [f"torch.{name}" for name in dir(torch) if name.startswith("_foreach_")]
        with probes.forbid(*targets, module=mod) as seen:
            # and torch.optim's fused kernels at torch's dispatcher, however they are reached
            # (`getattr(torch, "_fused_adam" + "w_")`, a kept reference, torch.ops.aten)
            out, ops = probes.forbid_ops(_run, FUSED_OPS, mod, param, grads, kwargs)
        return seen.names() + probes.at_dispatcher(ops), out

    param, grads = _start(), _grads(3)
    kwargs = {"lr": LR, "weight_decay": 0.1, "decoupled": True}
    called, seen = sub.probe(guarded, sub, param, grads, kwargs)
    assert not called, f"adam_update called {sorted(set(called))}: write the update yourself"
    want, _ = _torch(param, grads, kwargs)
    _compare(seen, want, "adam_update under the runtime guard")


def _state_devices(mod, device):
    param = torch.randn(4, 3, dtype=torch.float64).to(device)
    state = {}
    for _ in range(2):
        mod.adam_update(param, torch.ones_like(param), state, lr=LR, weight_decay=0.1, decoupled=False)
    return param.device.type, sorted((k, v.device.type, str(v.dtype), tuple(v.shape)) for k, v in state.items()
                                     if isinstance(v, torch.Tensor) and v.dim() > 0)


def _assert_devices(seen, device):
    p_device, tensors = seen
    names = [name for name, *_ in tensors]
    assert "exp_avg" in names and "exp_avg_sq" in names, f"no exp_avg / exp_avg_sq tensors in the state on {device}"
    for name, t_device, dtype, shape in tensors:
        assert (t_device, dtype, shape) == (device, "torch.float64", (4, 3)), \
            f"state[{name!r}] is {dtype} {shape} on {t_device}: make it like the param (float64 (4, 3) on {device})"
    assert p_device == device


@check("device")
def test_meta_state_follows_param(sub):
    _assert_devices(sub.probe(_state_devices, sub, "meta"), "meta")


@requires_cuda
@check("device")
def test_cuda_state_stays_on_cuda(sub):
    _assert_devices(sub.probe(_state_devices, sub, "cuda"), "cuda")
