"""Hidden checks for 28_functional_vs_modules.

Probes switch modes with `nn.Module.train`, read the layers and weights from torch's registries
(`probes.modules`, `probes.state_dict`), observe the hidden activations through hooks registered
with `nn.Module`'s own methods and the dropout calls through `probes.spy`. Expected values are
computed in the judge from the candidate's weights (or weights loaded into both).
"""
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from grader import probes
from grader.testing import assert_close, assert_shape, check

IN, HID, OUT = 6, 64, 3
KEYS = ["fc1.bias", "fc1.weight", "fc2.bias", "fc2.weight"]


def _dropout_free(x, state):
    h = F.gelu(F.linear(x, state["fc1.weight"], state["fc1.bias"]))
    return F.linear(h, state["fc2.weight"], state["fc2.bias"])


def _keys(state):
    assert sorted(state) == KEYS, f"the registered state is {sorted(state)}, expected {KEYS}"


def _state(seed=28):
    g = torch.Generator().manual_seed(seed)
    return {"fc1.weight": torch.randn(HID, IN, generator=g) / 2, "fc1.bias": torch.randn(HID, generator=g),
            "fc2.weight": torch.randn(OUT, HID, generator=g) / 4, "fc2.bias": torch.randn(OUT, generator=g)}


@check("mode", weight=2)
def test_eval_deterministic_and_dropout_free(sub):
    def run(mod, x):
        from torch import nn

        model = mod.FunctionalNet(IN, HID, OUT)
        nn.Module.train(model, True)
        with torch.no_grad():
            model(x)
            nn.Module.train(model, False)
            return model(x), model(x), probes.state_dict(model)

    x = torch.randn(16, IN)
    first, second, state = sub.probe(run, sub, x)
    assert_shape(first, (16, OUT), what=f"eval output of FunctionalNet({IN}, {HID}, {OUT}) for a (16, {IN}) input")
    assert isinstance(second, torch.Tensor) and torch.equal(first, second), \
        "two eval-mode forwards on the same input differ: dropout is still active after eval()"
    _keys(state)
    assert_close(first, _dropout_free(x, state), what="eval output vs fc2(gelu(fc1(x))) with the model's own weights")


def _train_run(mod, p, x):
    """Probe: two train-mode forwards of FunctionalNet(IN, HID, OUT, p), with fc1's output and
    fc2's input seen through hooks."""
    from torch import nn

    model = mod.FunctionalNet(IN, HID, OUT, p)
    nn.Module.train(model, True)
    layers = dict(probes.modules(model))
    fc1, fc2 = layers.get("fc1"), layers.get("fc2")
    if not isinstance(fc1, nn.Linear) or not isinstance(fc2, nn.Linear):
        return {"layers": probes.named_children(model)}
    seen = {"a": [], "h": [], "out": []}
    handles = [nn.Module.register_forward_hook(fc1, lambda m, args, out: seen["a"].append(out.detach().clone())),
               nn.Module.register_forward_pre_hook(fc2, lambda m, args: seen["h"].append(args[0].detach().clone()))]
    try:
        with torch.no_grad():
            for _ in range(2):
                seen["out"].append(model(x))
    finally:
        for handle in handles:
            handle.remove()
    return seen


@check("mode", weight=2)
@pytest.mark.parametrize("p", [0.5, 0.2], ids=["p0.5", "p0.2"])
def test_train_dropout_on_hidden(sub, p):
    x = torch.randn(32, IN)
    seen = sub.probe(_train_run, sub, p, x)
    assert "out" in seen, f"fc1 and fc2 must be nn.Linear children, the model has {seen['layers']}"
    first, second = seen["out"]
    assert_shape(first, (32, OUT), what="train-mode output")
    assert isinstance(second, torch.Tensor) and not torch.equal(first, second), \
        f"two train-mode forwards with p={p} gave the same output: dropout is not active in train()"
    assert len(seen["a"]) == 2 and len(seen["h"]) == 2, \
        f"fc1 ran {len(seen['a'])} and fc2 {len(seen['h'])} times in two forwards, expected 2 each"
    for a, h in zip(seen["a"], seen["h"]):
        kept = F.gelu(a) / (1 - p)
        dropped = h == 0
        assert torch.allclose(h[~dropped], kept[~dropped], atol=1e-5, rtol=1e-4), \
            f"fc2's input is neither 0 nor gelu(fc1(x)) / (1 - p) with p={p}: dropout goes on the GELU output, inverted"
        rate = dropped.float().mean().item()
        assert abs(rate - p) < 0.06, f"with p={p}, {rate:.0%} of the hidden activations were zeroed"


def _mode_flags(call):
    target, args, kwargs = call
    if target.endswith("functional.dropout"):
        return args[2] if len(args) > 2 else kwargs.get("training", True)
    return args[2] if len(args) > 2 else kwargs.get("train")


@check("api")
def test_functional_dropout_follows_mode(sub):
    sub.static.require_implemented("FunctionalNet.__init__", "FunctionalNet.forward")

    def spied(mod, x):
        from torch import nn

        model = mod.FunctionalNet(IN, HID, OUT)
        banned = [(name, probes.qualified_name(m)) for name, m in probes.modules(model)
                  if isinstance(m, (nn.GELU, nn.modules.dropout._DropoutNd))]
        calls, outs = [], []
        for train in (True, False, True):
            nn.Module.train(model, train)
            with probes.spy("torch.nn.functional.dropout", "torch.dropout", module=mod) as seen, torch.no_grad():
                outs.append(model(x))
            calls.append([(target, _mode_flags((target, args, kwargs))) for target, args, kwargs in seen.calls])
        return banned, calls, outs

    banned, calls, outs = sub.probe(spied, sub, torch.randn(4, IN))
    for out in outs:
        assert_shape(out, (4, OUT), what="output")
    assert not banned, f"the model holds {banned}: call F.gelu and F.dropout in forward instead"
    for train, seen in zip((True, False, True), calls):
        mode = "train()" if train else "eval()"
        assert len(seen) == 1, f"one forward in {mode} made {len(seen)} dropout calls, expected 1: {seen}"
        assert seen[0][1] is train, \
            f"in {mode} dropout was called with training={seen[0][1]!r}: pass the module's mode (self.training)"


@check("state")
def test_state_dict_keys(sub):
    def layout(mod):
        model = mod.FunctionalNet(IN, HID, OUT)
        layers = dict(probes.modules(model))
        return ({k: tuple(v.shape) for k, v in probes.state_dict(model).items()},
                [probes.qualified_name(layers[k]) if k in layers else None for k in ("fc1", "fc2")])

    shapes, types = sub.probe(layout, sub)
    _keys(shapes)
    want = {"fc1.weight": (HID, IN), "fc1.bias": (HID,), "fc2.weight": (OUT, HID), "fc2.bias": (OUT,)}
    assert shapes == want, f"parameter shapes {shapes}, expected {want}"
    assert types == ["torch.nn.modules.linear.Linear"] * 2, f"fc1 and fc2 are {types}, expected nn.Linear"


def _loaded_run(mod, p, state, x, train):
    from torch import nn

    model = mod.FunctionalNet(IN, HID, OUT, p)
    result = probes.load_state_dict(model, state, strict=False)
    nn.Module.train(model, train)
    with torch.no_grad():
        return result, model(x)


def _sequential(p, state):
    seq = nn.Sequential(nn.Linear(IN, HID), nn.GELU(), nn.Dropout(p), nn.Linear(HID, OUT))
    seq.load_state_dict({k.replace("fc1.", "0.").replace("fc2.", "3."): v for k, v in state.items()})
    return seq


@check("value", weight=2)
@pytest.mark.parametrize("p,shape,train", [(0.5, (9, IN), False), (0.3, (2, 5, IN), False), (0.0, (7, IN), True)],
                         ids=["eval-p0.5", "eval-3d", "train-p0"])
def test_matches_sequential(sub, p, shape, train):
    state, x = _state(), torch.randn(*shape)
    (missing, unexpected), out = sub.probe(_loaded_run, sub, p, state, x, train)
    assert not missing and not unexpected, f"loading fc1/fc2 weights: missing {missing}, unexpected {unexpected}"
    seq = _sequential(p, state).train(train)
    with torch.no_grad():
        want = seq(x)
    assert_close(out, want, what=f"{'train' if train else 'eval'}-mode output with p={p} vs "
                                 "nn.Sequential(Linear, GELU, Dropout, Linear) with the same weights")


@check("grad")
def test_every_parameter_gets_grad(sub):
    def grads(mod, state, x, r):
        from torch import nn

        model = mod.FunctionalNet(IN, HID, OUT)
        probes.load_state_dict(model, state, strict=False)
        found = {}
        for train in (True, False):
            nn.Module.train(model, train)
            params = probes.named_parameters(model)
            for p in params.values():
                p.grad = None
            (model(x) * r).sum().backward()
            found[train] = {n: None if p.grad is None else p.grad.clone() for n, p in params.items()}
        return found

    state, x, r = _state(), torch.randn(8, IN), torch.randn(8, OUT)
    found = sub.probe(grads, sub, state, x, r)
    _keys(found[True])
    for name, grad in found[True].items():
        assert grad is not None and bool(grad.abs().sum() > 0), f"{name} received no gradient in train mode"
    seq = _sequential(0.5, state).eval()
    (seq(x) * r).sum().backward()
    want = {"fc1.weight": seq[0].weight.grad, "fc1.bias": seq[0].bias.grad,
            "fc2.weight": seq[3].weight.grad, "fc2.bias": seq[3].bias.grad}
    for name, grad in found[False].items():
        assert grad is not None, f"{name} received no gradient in eval mode"
        assert_close(grad, want[name], atol=1e-5, rtol=1e-4, what=f"eval-mode gradient of {name}")
