"""Hidden checks for 29_hooks.

Models are built in the judge (or inside probes) from torch's own layers, so their methods are
torch's; expected activations and gradient norms are computed in the judge with hooks and
`retain_grad()`. Hook registries are read with `object.__getattribute__` on every registered
submodule (`probes.modules`), plus torch's global hook dicts.
"""
from collections import OrderedDict

import pytest
import torch
from torch import nn

from grader import probes
from grader.testing import assert_close, assert_shape, check, requires_cuda

NAMES = ["stem", "act", "block.0", "block", "head"]
HOOK_DICTS = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks")
GLOBAL_DICTS = ("_global_forward_hooks", "_global_forward_pre_hooks", "_global_backward_hooks",
                "_global_backward_pre_hooks")


def _model(seed=29):
    torch.manual_seed(seed)
    return nn.Sequential(OrderedDict(
        stem=nn.Linear(5, 8), act=nn.Tanh(),
        block=nn.Sequential(nn.Linear(8, 6), nn.GELU()),
        head=nn.Linear(6, 3)))


def _loss(out):
    return (out ** 2).mean() + 0.3 * out[..., 0].sum()


def _expected_activations(model, x):
    seen, handles = {}, []
    for name, m in model.named_modules():
        if name in NAMES:
            handles.append(m.register_forward_hook(lambda m, a, out, name=name: seen.__setitem__(name, out.detach())))
    with torch.no_grad():
        model(x)
    for h in handles:
        h.remove()
    return seen


def _expected_norms(model, x, names):
    outs, handles = {}, []
    for name, m in model.named_modules():
        if name in names:
            def keep(m, a, out, name=name):
                out.retain_grad()
                outs[name] = out
            handles.append(m.register_forward_hook(keep))
    _loss(model(x)).backward()
    for h in handles:
        h.remove()
    model.zero_grad(set_to_none=True)
    return {name: outs[name].grad.norm().item() for name in names}


def _as_dict(result, what):
    assert isinstance(result, dict), f"{what} must return a dict, got {getattr(result, 'remote_type', type(result).__name__)}"
    return result


@check("shape", weight=2)
@pytest.mark.parametrize("shape", [(7, 5), (2, 4, 5)], ids=["2d", "3d"])
def test_captured_shapes_and_values(sub, shape):
    model, x = _model(), torch.randn(*shape)
    got = _as_dict(sub.capture_activations(model, x, NAMES), "capture_activations")
    assert sorted(got) == sorted(NAMES), f"captured {sorted(got)}, asked for {sorted(NAMES)}"
    expected = _expected_activations(model, x)
    for name in NAMES:
        assert_shape(got[name], expected[name].shape, what=f"activation of {name!r}")
        assert_close(got[name], expected[name], what=f"activation of {name!r}")


@check("grad")
def test_captured_detached(sub):
    def capture(mod, model, x):
        out = mod.capture_activations(model, x.requires_grad_(), NAMES)
        if not isinstance(out, dict):
            return None
        return {k: (isinstance(v, torch.Tensor), isinstance(v, torch.Tensor) and v.requires_grad,
                    isinstance(v, torch.Tensor) and v.grad_fn is not None) for k, v in out.items()}

    seen = sub.probe(capture, sub, _model(), torch.randn(4, 5))
    assert isinstance(seen, dict) and sorted(seen) == sorted(NAMES), f"capture_activations returned {seen}"
    for name, (is_tensor, requires_grad, has_graph) in seen.items():
        assert is_tensor, f"the activation of {name!r} is not a tensor"
        assert not requires_grad and not has_graph, \
            f"the activation of {name!r} is still attached to the graph (requires_grad={requires_grad}): detach it"


def _hook_census(mod, model, x, calls):
    """Probe: run each call of `calls` ((function, names, raise in forward)) on `model` with one
    hook of the user's on `stem`; after each, the hooks left on every module and globally."""
    from torch import nn

    class Boom(Exception):
        pass

    class Fuse(nn.Module):
        armed = False

        def forward(self, t):
            if self.armed:
                raise Boom("injected failure")
            return t

    fuse = Fuse()
    nn.Module.add_module(model, "fuse", fuse)
    layers = dict(probes.modules(model))
    user = nn.Module.register_forward_hook(layers["stem"], lambda m, a, out: None)

    def census():
        left = {}
        for name, m in probes.modules(model):
            for attr in HOOK_DICTS:  # through dict's own methods: a dict subclass cannot hide a hook
                keys = probes.hook_keys(m, attr)
                if name == "stem" and attr == "_forward_hooks":
                    keys = [k for k in keys if k != user.id]
                if keys:
                    left[f"{name or '<model>'}.{attr}"] = len(keys)
            if "forward" in object.__getattribute__(m, "__dict__"):
                left[f"{name or '<model>'}.forward (patched on the instance)"] = 1
        for attr in GLOBAL_DICTS:
            if probes.hook_keys(None, attr):
                left[attr] = len(probes.hook_keys(None, attr))
        left["user hook kept"] = user.id in probes.hook_keys(layers["stem"], "_forward_hooks")
        return left

    results = []
    for fn, names, armed in calls:
        fuse.armed = armed
        try:
            if fn == "capture":
                out = mod.capture_activations(model, x, names)
            else:
                out = mod.activation_grad_norms(model, x, _loss, names)
            outcome = ("returned", sorted(out) if isinstance(out, dict) else type(out).__name__)
        except Boom:
            outcome = ("raised", "Boom")
        except KeyError:
            outcome = ("raised", "KeyError")
        except NotImplementedError:
            raise
        except Exception as exc:  # noqa: BLE001 - reported as data
            outcome = ("raised", type(exc).__name__)
        results.append((outcome, census()))
    user.remove()
    return results


HOOK_CALLS = [("capture", ["stem", "block.0", "head"], False), ("capture", ["stem", "block.0", "head"], True),
              ("capture", ["stem", "nope"], False), ("norms", ["stem", "block.0", "head"], False),
              ("norms", ["stem", "block.0", "head"], True)]


@check("state", weight=2)
def test_hooks_removed(sub):
    results = sub.probe(_hook_census, sub, _model(), torch.randn(3, 5), HOOK_CALLS)
    for (fn, names, armed), (outcome, left) in zip(HOOK_CALLS, results):
        what = {"capture": "capture_activations", "norms": "activation_grad_norms"}[fn]
        case = f"{what}(..., {names})" + (" with a forward that raises" if armed else "")
        if armed:
            assert outcome == ("raised", "Boom"), f"{case} must let the forward's exception through, got {outcome}"
        elif "nope" in names:
            assert outcome == ("raised", "KeyError"), f"{case} must raise KeyError, got {outcome}"
        else:
            assert outcome == ("returned", sorted(names)), f"{case} gave {outcome}, expected a dict of {sorted(names)}"
        kept = left.pop("user hook kept")
        assert not left, f"after {case} these hooks were left behind: {left}"
        assert kept, f"{case} removed a forward hook the caller had registered on 'stem'"


@check("value")
def test_unknown_name_keyerror(sub):
    def run(mod, model, x):
        from torch import nn

        class Counter(nn.Module):
            calls = 0

            def forward(self, t):
                type(self).calls += 1
                return t

        nn.Module.add_module(model, "counter", Counter())
        try:
            mod.capture_activations(model, x, ["stem", "block.7"])
        except KeyError:
            raised = "KeyError"
        except NotImplementedError:
            raise
        except Exception as exc:  # noqa: BLE001 - reported as data
            raised = type(exc).__name__
        else:
            raised = None
        return raised, Counter.calls

    raised, calls = sub.probe(run, sub, _model(), torch.randn(3, 5))
    assert raised == "KeyError", f"an unknown layer name ('block.7') gave {raised or 'no exception'}, expected KeyError"
    assert calls == 0, f"the model ran {calls} time(s) before the unknown name was reported: check the names first"


@check("value", weight=2)
@pytest.mark.parametrize("names", [NAMES, ["head", "stem"]], ids=["all", "two"])
def test_grad_norms_match(sub, names):
    model, x = _model(), torch.randn(6, 5)
    got = _as_dict(sub.activation_grad_norms(model, x, _loss, names), "activation_grad_norms")
    assert sorted(got) == sorted(names), f"norms for {sorted(got)}, asked for {sorted(names)}"
    expected = _expected_norms(model, x, names)
    for name in names:
        assert isinstance(got[name], float), f"the norm of {name!r} must be a Python float, got {type(got[name]).__name__}"
        assert_close(got[name], expected[name], atol=1e-6, rtol=1e-5, what=f"norm of dLoss/d({name} output)")


@check("state", weight=2)
def test_param_grads_untouched(sub):
    def run(mod, model, x, preset):
        params = probes.named_parameters(model)
        for name, grad in preset.items():
            params[name].grad = grad.clone()
        norms = mod.activation_grad_norms(model, x, _loss, ["stem", "head"])
        return norms, {name: None if p.grad is None else p.grad.clone() for name, p in params.items()}

    model, x = _model(), torch.randn(6, 5)
    preset = {"stem.weight": torch.randn(8, 5), "head.bias": torch.randn(3)}
    norms, grads = sub.probe(run, sub, model, x, preset)
    norms = _as_dict(norms, "activation_grad_norms")
    expected = _expected_norms(model, x, ["stem", "head"])
    for name in ("stem", "head"):
        assert_close(norms.get(name), expected[name], atol=1e-6, rtol=1e-5, what=f"norm of dLoss/d({name} output)")
    for name, grad in grads.items():
        if name in preset:
            assert grad is not None and torch.equal(grad, preset[name]), \
                f"{name}.grad was set before the call and changed: leave parameter grads exactly as found"
        else:
            assert grad is None, f"{name}.grad was None before the call and is now set: leave parameter grads as found"


@check("mode")
@pytest.mark.parametrize("mode", ["train", "eval", "mixed"], ids=["train", "eval", "mixed"])
def test_training_flags_unchanged(sub, mode):
    def run(mod, model, x, mode):
        from torch import nn

        nn.Module.train(model, mode != "eval")
        if mode == "mixed":
            nn.Module.train(dict(probes.modules(model))["block"], False)
        before = [(n, m.training) for n, m in probes.modules(model)]
        captured = mod.capture_activations(model, x, ["stem", "head"])
        after_capture = [(n, m.training) for n, m in probes.modules(model)]
        norms = mod.activation_grad_norms(model, x, _loss, ["stem", "head"])
        after_norms = [(n, m.training) for n, m in probes.modules(model)]
        return captured, norms, before, after_capture, after_norms

    model, x = _model(), torch.randn(4, 5)
    captured, norms, before, after_capture, after_norms = sub.probe(run, sub, model, x, mode)
    assert isinstance(captured, dict) and sorted(captured) == ["head", "stem"], f"capture_activations returned {captured!r}"
    assert isinstance(norms, dict) and sorted(norms) == ["head", "stem"], f"activation_grad_norms returned {norms!r}"
    assert_close(captured["head"], _expected_activations(model, x)["head"], what="captured head output")
    changed = [n or "<model>" for (n, a), (_, b) in zip(before, after_capture) if a != b]
    assert not changed, f"capture_activations changed the training flag of {changed} ({mode} model)"
    changed = [n or "<model>" for (n, a), (_, b) in zip(before, after_norms) if a != b]
    assert not changed, f"activation_grad_norms changed the training flag of {changed} ({mode} model)"


@check("device")
def test_meta_device_fallback(sub):
    def on_meta(mod, model, x):
        from torch import nn

        nn.Module.to(model, "meta")
        try:
            out = mod.capture_activations(model, x.to("meta"), ["stem", "block", "head"])
        except NotImplementedError:
            raise
        except Exception as exc:  # noqa: BLE001 - reported as data
            return f"{type(exc).__name__}: {exc}"[:300]
        if not isinstance(out, dict):
            return type(out).__name__
        return {k: (v.device.type, tuple(v.shape)) if isinstance(v, torch.Tensor) else type(v).__name__
                for k, v in out.items()}

    seen = sub.probe(on_meta, sub, _model(), torch.randn(3, 5))
    want = {"stem": ("meta", (3, 8)), "block": ("meta", (3, 6)), "head": ("meta", (3, 3))}
    assert seen == want, f"capture_activations on a meta model gave {seen}, expected {want}"


@requires_cuda
@check("device", weight=2)
def test_cuda_model(sub):
    def on_cuda(mod, model, x):
        from torch import nn

        nn.Module.cuda(model)
        xc = x.cuda()
        captured = mod.capture_activations(model, xc, NAMES)
        norms = mod.activation_grad_norms(model, xc, _loss, NAMES)
        return {k: (v.device.type, v.cpu()) for k, v in captured.items()}, norms

    model, x = _model(), torch.randn(4, 5)
    captured, norms = sub.probe(on_cuda, sub, model, x)
    expected, expected_norms = _expected_activations(model, x), _expected_norms(model, x, NAMES)
    for name in NAMES:
        device, value = captured[name]
        assert device == "cuda", f"the activation of {name!r} is on {device}, expected cuda"
        assert_close(value, expected[name], atol=1e-4, rtol=1e-4, what=f"activation of {name!r} on CUDA")
        assert_close(norms[name], expected_norms[name], atol=1e-5, rtol=1e-4, what=f"norm of {name!r} on CUDA")
