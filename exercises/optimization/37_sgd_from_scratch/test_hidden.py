"""Hidden checks for 37_sgd_from_scratch.

The candidate's optimizer is built and stepped inside probes, over the parameters of a model that
lives in the worker (`probes.train_steps`, which sets the grads to None itself); its state is read
from the instance's own `state` entry (`probes.optimizer_state`). Expected trajectories come from
`torch.optim.SGD` run in the judge on the same starting values, in float64.
"""
import pytest
import torch
from torch import nn

from grader import probes
from grader.testing import assert_close, check, requires_cuda

FORBIDDEN = ["torch.optim.SGD", "torch.optim.sgd", "torch.optim._functional"]


def _start():
    """A small float64 MLP's starting values, and its data."""
    g = torch.Generator().manual_seed(37)
    state = {"0.weight": torch.randn(8, 4, generator=g, dtype=torch.float64) * 0.5,
             "0.bias": torch.randn(8, generator=g, dtype=torch.float64) * 0.1,
             "2.weight": torch.randn(2, 8, generator=g, dtype=torch.float64) * 0.5,
             "2.bias": torch.randn(2, generator=g, dtype=torch.float64) * 0.1}
    x = torch.randn(16, 4, generator=g, dtype=torch.float64)
    y = torch.randn(16, 2, generator=g, dtype=torch.float64)
    return state, x, y


def _train(make, state, x, y, kwargs, steps, groups=False, set_to_none=True, extra=False):
    """Build the MLP from `state`, an optimizer `make(params, **kwargs)`, run `steps` steps.
    Runs in the judge (make=torch.optim.SGD) and in the worker (make=the candidate's class)."""
    from torch import nn

    from grader import probes

    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2)).double()
    nn.Module.load_state_dict(model, state)
    params = list(nn.Module.parameters(model))
    unused = nn.Parameter(torch.ones(3, dtype=torch.float64))
    if extra:
        params.insert(2, unused)          # in the middle: the parameters after it still need their update
    if groups:
        spec = [{"params": params[:2]}, {"params": params[2:], "lr": 0.01, "momentum": 0.5, "weight_decay": 1.0}]
        opt = make(spec, **kwargs)
    else:
        opt = make(params, **kwargs)
    seen = probes.train_steps(opt, params, lambda: ((model(x) - y) ** 2).mean(), steps,
                              set_to_none=set_to_none)
    return seen, probes.optimizer_state(opt)


def _candidate(mod, *args, **kwargs):
    return _train(mod.MomentumSGD, *args, **kwargs)


def _expected(*args, **kwargs):
    return _train(torch.optim.SGD, *args, **kwargs)


def _compare(got, want, what, atol=1e-6):
    assert len(got["params"]) == len(want["params"]), f"{what}: {len(got['params'])} steps recorded"
    for step, (g_step, w_step) in enumerate(zip(got["params"], want["params"])):
        for i, (g, w) in enumerate(zip(g_step, w_step)):
            assert_close(g, w, atol=atol, rtol=0, what=f"{what}: parameter {i} after step {step + 1}")


CASES = [(0.0, False, 0.0), (0.0, False, 1e-2), (0.9, False, 0.0), (0.9, False, 1e-2), (0.9, True, 0.0),
         (0.9, True, 1e-2), (1.0, False, 0.0)]


@check("value", weight=3)
@pytest.mark.parametrize("momentum,nesterov,wd", CASES,
                         ids=[f"m{m}-{'nesterov' if n else 'plain'}-wd{w}" for m, n, w in CASES])
def test_trajectories_match_sgd(sub, momentum, nesterov, wd):
    state, x, y = _start()
    kwargs = {"lr": 0.05, "momentum": momentum, "weight_decay": wd, "nesterov": nesterov}
    if (momentum, nesterov, wd) == (0.0, False, 0.0):
        kwargs = {"lr": 0.05}                  # the defaults: plain SGD
    got, _ = sub.probe(_candidate, sub, state, x, y, kwargs, 25)
    want, _ = _expected(state, x, y, kwargs, 25)
    _compare(got, want, f"MomentumSGD({kwargs}) vs torch.optim.SGD over 25 steps")


@check("value")
def test_grads_zeroed_in_place(sub):
    """zero_grad(set_to_none=False) zeroes .grad in place: a momentum buffer that is the .grad
    tensor itself would be zeroed with it."""
    state, x, y = _start()
    kwargs = {"lr": 0.05, "momentum": 0.9}
    got, _ = sub.probe(_candidate, sub, state, x, y, kwargs, 5, set_to_none=False)
    want, _ = _expected(state, x, y, kwargs, 5, set_to_none=False)
    _compare(got, want, "MomentumSGD(lr=0.05, momentum=0.9) with grads zeroed in place between steps")


@check("state", weight=2)
def test_momentum_buffer_state(sub):
    state, x, y = _start()
    kwargs = {"lr": 0.05, "momentum": 0.9, "weight_decay": 1e-2}
    got, seen = sub.probe(_candidate, sub, state, x, y, kwargs, 1)
    _, want = _expected(state, x, y, kwargs, 1)
    assert sorted(seen["state"]) == [0, 1, 2, 3], \
        f"after one step with momentum, optimizer.state holds entries for parameters {sorted(seen['state'])}, expected all 4"
    for i in range(4):
        entry = seen["state"][i]
        assert "momentum_buffer" in entry, f"optimizer.state[p] of parameter {i} has keys {sorted(entry)}, no 'momentum_buffer'"
        buf, expected = entry["momentum_buffer"], want["state"][i]["momentum_buffer"]
        assert isinstance(buf, torch.Tensor), f"momentum_buffer of parameter {i} is not a tensor"
        assert_close(buf, expected, atol=1e-6, rtol=0,  # the contract's atol 1e-6 (float64)
                     what=f"momentum_buffer of parameter {i} after the first step (grad + weight_decay * param)")


def _round_trip(mod, state, x, y, kwargs, first, then):
    import copy

    from torch import nn

    from grader import probes

    def build(values):
        model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2)).double()
        nn.Module.load_state_dict(model, values)
        return model, list(nn.Module.parameters(model))

    model, params = build(state)
    opt = mod.MomentumSGD(params, **kwargs)
    probes.train_steps(opt, params, lambda: ((model(x) - y) ** 2).mean(), first)
    saved = copy.deepcopy(opt.state_dict())
    model2, params2 = build(probes.state_dict(model))
    del opt, model, params
    opt2 = mod.MomentumSGD(params2, **kwargs)
    opt2.load_state_dict(saved)
    return probes.train_steps(opt2, params2, lambda: ((model2(x) - y) ** 2).mean(), then)


@check("state", weight=2)
def test_state_dict_round_trip(sub):
    state, x, y = _start()
    kwargs = {"lr": 0.05, "momentum": 0.9, "weight_decay": 1e-2, "nesterov": True}
    got = sub.probe(_round_trip, sub, state, x, y, kwargs, 5, 5)
    want, _ = _expected(state, x, y, kwargs, 10)
    _compare(got, {"params": want["params"][5:]},
             "after state_dict() -> load_state_dict() into a fresh MomentumSGD at step 5, the trajectory")


@check("grad", weight=2)
def test_params_without_grad_untouched(sub):
    state, x, y = _start()
    kwargs = {"lr": 0.05, "momentum": 0.9, "weight_decay": 1e-2}
    got, seen = sub.probe(_candidate, sub, state, x, y, kwargs, 3, extra=True)
    want, _ = _expected(state, x, y, kwargs, 3, extra=True)
    for step in range(3):
        assert torch.equal(got["params"][step][2], torch.ones(3, dtype=torch.float64)), \
            f"a parameter whose .grad is None changed at step {step + 1}: skip it"
    assert 2 not in seen["state"] or not seen["state"][2], \
        f"a parameter whose .grad is None got optimizer state {sorted(seen['state'][2])}: skip it entirely"
    keep = [0, 1, 3, 4]
    _compare({"params": [[p[i] for i in keep] for p in got["params"]]},
             {"params": [[p[i] for i in keep] for p in want["params"]]},
             "the parameters that have gradients (before and after the one without)")


def _leaves(mod, state, x, y, wd):
    from torch import nn

    from grader import probes

    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2)).double()
    nn.Module.load_state_dict(model, state)
    params = list(nn.Module.parameters(model))
    opt = mod.MomentumSGD(params, lr=0.05, momentum=0.9, weight_decay=wd, nesterov=True)
    seen = probes.train_steps(opt, params, lambda: ((model(x) - y) ** 2).mean(), 2)
    for p in params:
        p.grad = None
    ((model(x) - y) ** 2).mean().backward()
    grads = [p.grad.clone() for p in params]
    opt.step()
    seen["params"].append([p.detach().clone() for p in params])
    intact = all(torch.equal(p.grad, g) for p, g in zip(params, grads))
    registered = list(nn.Module.parameters(model))
    held = [p for g in object.__getattribute__(opt, "__dict__")["param_groups"] for p in g["params"]]
    buffers = [t for s in object.__getattribute__(opt, "__dict__")["state"].values() for t in s.values()
               if isinstance(t, torch.Tensor)]
    return {"params": [(p.is_leaf, p.grad_fn is None, p.requires_grad, isinstance(p, nn.Parameter))
                       for p in registered],
            "same": len(held) == len(params) and all(a is b for a, b in zip(held, registered)),
            "buffers": [(b.grad_fn is None, b.requires_grad) for b in buffers],
            "last": seen["params"][-1], "intact": intact}


@check("grad")
@pytest.mark.parametrize("wd", [0.0, 1e-2], ids=["wd0", "wd0.01"])
def test_params_stay_leaves(sub, wd):
    state, x, y = _start()
    seen = sub.probe(_leaves, sub, state, x, y, wd)
    want, _ = _expected(state, x, y, {"lr": 0.05, "momentum": 0.9, "weight_decay": wd, "nesterov": True}, 3)
    _compare({"params": [seen["last"]]}, {"params": [want["params"][-1]]}, "the parameters after 3 steps")
    assert seen["same"], "optimizer.param_groups no longer hold the model's own parameters after step()"
    assert seen["intact"], "step() changed the parameters' .grad: compute the update in new tensors"
    for i, (leaf, no_fn, req, is_param) in enumerate(seen["params"]):
        assert leaf and no_fn and req and is_param, \
            f"after step(), parameter {i} must still be an nn.Parameter leaf with grad_fn None that requires grad"
    assert seen["buffers"], "no momentum buffers were kept"
    for no_fn, req in seen["buffers"]:
        assert no_fn and not req, "a momentum buffer holds an autograd graph: run the update under torch.no_grad()"


@check("value")
def test_param_groups_respected(sub):
    state, x, y = _start()
    kwargs = {"lr": 0.1, "momentum": 0.9}
    got, seen = sub.probe(_candidate, sub, state, x, y, kwargs, 10, groups=True)
    want, _ = _expected(state, x, y, kwargs, 10, groups=True)
    lrs = [g["lr"] for g in seen["param_groups"]]
    assert lrs == [0.1, 0.01], f"param group lrs are {lrs}, expected [0.1, 0.01]"
    _compare(got, want, "two param groups (lr 0.1; lr 0.01 with momentum 0.5 and weight_decay 1.0)")


@check("value")
def test_invalid_arguments_raise(sub):
    p = [nn.Parameter(torch.ones(2))]
    with pytest.raises(ValueError):
        sub.MomentumSGD(p, lr=0.1, momentum=0.0, nesterov=True)
    with pytest.raises(ValueError):
        sub.MomentumSGD(p, lr=-0.1)

    def valid(mod, kwargs):
        w = torch.nn.Parameter(torch.ones(2))
        opt = mod.MomentumSGD([w], **kwargs)
        return isinstance(opt, torch.optim.Optimizer), len(object.__getattribute__(opt, "__dict__")["param_groups"])

    for kwargs in ({"lr": 0.1, "momentum": 0.9, "nesterov": True}, {"lr": 0.0}):
        assert sub.probe(valid, sub, kwargs) == (True, 1), \
            f"MomentumSGD([w], **{kwargs}) must build a torch.optim.Optimizer with one param group"


def _closure(mod, state, x, y, make=None):
    from torch import nn

    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2)).double()
    nn.Module.load_state_dict(model, state)
    params = list(nn.Module.parameters(model))
    opt = (make or mod.MomentumSGD)(params, lr=0.05, momentum=0.9)
    calls = []

    def closure():
        for p in params:
            p.grad = None
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        calls.append(float(loss.detach()))
        return loss

    out = opt.step(closure)
    value = out.detach().clone() if isinstance(out, torch.Tensor) else type(out).__name__
    after = [p.detach().clone() for p in params]
    plain = opt.step()
    return value, calls, after, plain is None


@check("value")
def test_step_closure_returns_loss(sub):
    state, x, y = _start()
    loss, calls, params, plain_none = sub.probe(_closure, sub, state, x, y)
    want_loss, _, want_params, _ = _closure(None, state, x, y, make=torch.optim.SGD)
    assert len(calls) == 1, f"step(closure) called the closure {len(calls)} times, expected once"
    assert isinstance(loss, torch.Tensor), f"step(closure) returned {loss}, expected the closure's loss"
    assert_close(loss, want_loss, what="the loss step(closure) returned")
    for i, (got, want) in enumerate(zip(params, want_params)):
        assert_close(got, want, atol=1e-6, rtol=0, what=f"parameter {i} after step(closure)")
    assert plain_none, "step() without a closure must return None"


# torch.optim's fused SGD kernel (every overload: in place, functional, tensor lr, out=)
FUSED_OPS = ("_fused_sgd_", "_fused_sgd_.tensor_lr", "_fused_sgd", "_fused_sgd.out", "_fused_sgd.tensor_lr",
             "_fused_sgd.tensor_lr_out")


@check("api")
def test_no_torch_sgd(sub):
    sub.static.require_implemented("MomentumSGD.__init__", "MomentumSGD.step")
    for api in FORBIDDEN:
        lines = sub.static.uses(api)
        assert not lines, f"the solution uses {api} (line {lines[0]}): write the update yourself"

    def guarded(mod, state, x, y):
        with probes.forbid("torch.optim.SGD.__init__", "torch.optim.SGD.step", "torch.optim.sgd.sgd",
                           "torch.optim._functional.sgd", "torch.optim.sgd._single_tensor_sgd",
                           "torch.optim.sgd._multi_tensor_sgd", module=mod) as seen:
            # and torch.optim's fused SGD kernel at torch's dispatcher, however it is reached
            # (`getattr(torch, "_fused" + "_sgd_")`, a kept reference, torch.ops.aten)
            out, ops = probes.forbid_ops(_candidate, FUSED_OPS, mod, state, x, y, {"lr": 0.05, "momentum": 0.9}, 3)
        return seen.names() + probes.at_dispatcher(ops), None if out is None else out[0]

    state, x, y = _start()
    called, got = sub.probe(guarded, sub, state, x, y)
    assert not called, f"MomentumSGD called {sorted(set(called))}: write the update yourself"
    want, _ = _expected(state, x, y, {"lr": 0.05, "momentum": 0.9}, 3)
    _compare(got, want, "MomentumSGD under the runtime guard")


def _buffers_on(mod, device):
    w = torch.nn.Parameter(torch.randn(3, 4, dtype=torch.float64).to(device))
    b = torch.nn.Parameter(torch.randn(4, dtype=torch.float64).to(device))
    opt = mod.MomentumSGD([w, b], lr=0.1, momentum=0.9, weight_decay=1e-2)
    for _ in range(2):
        w.grad, b.grad = torch.ones_like(w), torch.ones_like(b)
        opt.step()
    state = object.__getattribute__(opt, "__dict__")["state"]
    return [(p.device.type, str(p.dtype), tuple(p.shape),
             sorted((k, v.device.type, str(v.dtype), tuple(v.shape)) for k, v in state.get(p, {}).items()
                    if isinstance(v, torch.Tensor)))
            for p in (w, b)]


def _assert_buffers(seen, device):
    for i, (p_device, p_dtype, p_shape, buffers) in enumerate(seen):
        names = [name for name, *_ in buffers]
        assert "momentum_buffer" in names, f"parameter {i} on {device} has no momentum_buffer after two steps"
        for name, b_device, b_dtype, b_shape in buffers:
            assert (b_device, b_dtype, b_shape) == (p_device, p_dtype, p_shape), \
                (f"state {name!r} of parameter {i} is {b_dtype} {b_shape} on {b_device}, the parameter is "
                 f"{p_dtype} {p_shape} on {p_device}: create buffers like the parameter")
        assert p_device == device


@check("device")
def test_meta_buffers_follow_params(sub):
    _assert_buffers(sub.probe(_buffers_on, sub, "meta"), "meta")


@requires_cuda
@check("device")
def test_cuda_buffers_stay_on_cuda(sub):
    _assert_buffers(sub.probe(_buffers_on, sub, "cuda"), "cuda")
