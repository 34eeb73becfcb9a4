"""Hidden checks for 18_custom_mlp_module.

Every probe reads the model through the base class (`nn.Module.state_dict(m)`,
`nn.Module.named_modules(m)`...), never through methods the candidate's class can override, and
values come from the candidate's real forward on known weights.
"""
import torch

from grader.testing import assert_close, assert_shape, check, reference, requires_cuda

ref = reference(__file__)

EXPECTED_KEYS = ["layers.0.weight", "layers.0.bias", "layers.1.weight", "layers.1.bias", "head.weight", "head.bias"]


def _registered(mod, *args, **kwargs):
    """Probe: the model's registered state, read with nn.Module's own methods."""
    from torch import nn

    model = mod.MLP(*args, **kwargs)
    return {"keys": list(nn.Module.state_dict(model)),
            "count": sum(p.numel() for p in nn.Module.parameters(model)),
            "types": {name: type(m).__name__ for name, m in nn.Module.named_modules(model) if name}}


def _forward_with(mod, sizes, state, x, train=False):
    """Probe: load `state` through nn.Module.load_state_dict and run the candidate's forward."""
    from torch import nn

    model = mod.MLP(*sizes)
    nn.Module.load_state_dict(model, state, strict=True)
    nn.Module.train(model, train)
    with torch.no_grad():
        return model(x)


@check("shape", weight=2)
def test_output_shapes(sub):
    model = sub.MLP(10, [32, 16], 4)
    assert_shape(model(torch.randn(32, 10)), (32, 4))
    assert_shape(model(torch.randn(4, 7, 10)), (4, 7, 4), what="output for a (4, 7, 10) input")
    single = sub.MLP(10, [], 4)
    assert_shape(single(torch.randn(3, 10)), (3, 4), what="output with hidden=[]")
    seen = sub.probe(_registered, sub, 10, [], 4)
    assert sorted(seen["keys"]) == ["head.bias", "head.weight"], \
        f"hidden=[] must give no hidden layers, only the head; its registered state is {seen['keys']}"


@check("state", weight=2)
def test_state_dict_keys(sub):
    seen = sub.probe(_registered, sub, 10, [32, 16], 4)
    keys = seen["keys"]
    missing = [k for k in EXPECTED_KEYS if k not in keys]
    extra = [k for k in keys if k not in EXPECTED_KEYS]
    assert not missing and not extra, (f"registered state_dict keys: missing {missing}, unexpected {extra} "
                                       f"(expected {EXPECTED_KEYS})")
    not_linear = {n: t for n, t in seen["types"].items() if n.startswith("layers.") and t != "Linear"}
    assert not not_linear, f"self.layers must hold only nn.Linear modules, found {not_linear}"
    count = seen["count"]
    assert count == 10 * 32 + 32 + 32 * 16 + 16 + 16 * 4 + 4, f"unexpected parameter count {count}"


@check("state", weight=2)
def test_loads_reference_state_dict(sub):
    # The reference's weights go in through nn.Module.load_state_dict and the candidate's own forward
    # must then give the reference's output: hidden layers left out of forward cannot pass.
    expected_model = ref.MLP(6, [12, 5], 3).eval()
    state = {k: v.clone() for k, v in expected_model.state_dict().items()}
    x = torch.randn(9, 6)
    got = sub.probe(_forward_with, sub, (6, [12, 5], 3), state, x)
    assert isinstance(got, torch.Tensor), f"model(x) returned {type(got).__name__}, not a tensor"
    with torch.no_grad():
        assert_close(got, expected_model(x), what="eval output after loading the reference weights")
    # the public path too: the candidate's own load_state_dict must accept the reference state
    model = sub.MLP(6, [12, 5], 3)
    model.load_state_dict(state, strict=True)
    model.eval()
    with torch.no_grad():
        assert_close(model(x), expected_model(x), what="eval output after model.load_state_dict(reference)")


@check("api", weight=2)
def test_hooks_fire_once(sub):
    def count_linear_calls(mod):
        from torch import nn

        model = mod.MLP(6, [8, 8], 2)
        calls, names = [], []
        for name, m in nn.Module.named_modules(model):
            if isinstance(m, nn.Linear):
                names.append(name)
                nn.Module.register_forward_hook(m, lambda module, args, out, name=name: calls.append(name))
        out = model(torch.randn(3, 6))
        return calls, names, tuple(out.shape) if isinstance(out, torch.Tensor) else type(out).__name__

    calls, names, shape = sub.probe(count_linear_calls, sub)
    assert shape == (3, 2), f"model(x) for a (3, 6) input gave {shape}, expected shape (3, 2)"
    expected = ["head", "layers.0", "layers.1"]
    assert sorted(names) == expected, f"registered nn.Linear submodules are {sorted(names)}, expected {expected}"
    silent = [n for n in expected if n not in calls]
    twice = sorted({n for n in calls if calls.count(n) > 1})
    assert not silent, (f"the forward hooks of {silent} never fired during model(x): call each registered "
                        "submodule as layer(x) (layer.forward(x) skips hooks)")
    assert not twice, f"the forward hooks of {twice} fired more than once per model(x): call each layer once"


@check("mode", weight=2)
def test_train_eval_modes(sub):
    model = sub.MLP(16, [64], 8, dropout=0.5)
    x = torch.randn(32, 16)
    model.train()
    with torch.no_grad():
        a, b = model(x), model(x)
    assert not torch.equal(a, b), "train-mode outputs with dropout=0.5 should differ between calls"
    model.eval()
    with torch.no_grad():
        c, d = model(x), model(x)
    assert torch.equal(c, d), "eval-mode outputs must be identical: is dropout disabled in eval()?"

    def flags(m):
        from torch import nn
        return [mod.training for mod in nn.Module.modules(m)]

    assert not any(sub.probe(flags, model)), "model.eval() must set training=False on every submodule"

    def default_dropout(mod, x):
        # dropout defaults to 0.0: in train() the default model drops nothing, so its train-mode
        # outputs repeat and equal its eval-mode output
        from torch import nn

        model = mod.MLP(16, [64], 8)
        nn.Module.train(model, True)
        with torch.no_grad():
            first, second = model(x), model(x)
            nn.Module.train(model, False)
            evaluated = model(x)
        return torch.equal(first, second) and torch.allclose(first, evaluated)

    same = sub.probe(default_dropout, sub, x)
    assert same, ("MLP(16, [64], 8) in train() does not give its eval-mode output for the same x: "
                  "the default dropout is 0.0")


@check("grad")
def test_every_parameter_gets_grad(sub):
    model = sub.MLP(5, [7, 6], 2)
    model(torch.randn(4, 5)).sum().backward()

    def grads(m):
        from torch import nn
        return {n: p.grad is not None for n, p in nn.Module.named_parameters(m)}

    seen = sub.probe(grads, model)
    missing = [n for n, has in seen.items() if not has]
    assert sorted(seen) == sorted(k for k in EXPECTED_KEYS), f"registered parameters are {sorted(seen)}"
    assert not missing, f"no gradient reached {missing}: every layer must take part in forward"


@check("device")
def test_meta_device_fallback(sub):
    def moved_devices(mod):
        from torch import nn

        model = mod.MLP(4, [8], 2).to("meta")
        params = dict(nn.Module.named_parameters(model))
        hidden = [p.device.type for name, p in params.items() if name.startswith("layers.")]
        out = model(torch.randn(3, 4, device="meta"))
        return {"params": sorted({p.device.type for p in params.values()}), "hidden": hidden,
                "out": (out.device.type, tuple(out.shape)) if isinstance(out, torch.Tensor) else None}

    seen = sub.probe(moved_devices, sub)
    assert seen["params"] == ["meta"], f"model.to('meta') left parameters on {seen['params']}"
    assert seen["hidden"] and set(seen["hidden"]) == {"meta"}, \
        "the hidden layers did not move with model.to(): register them in an nn.ModuleList"
    assert seen["out"] == ("meta", (3, 2)), f"forward of a meta model on a (3, 4) meta input gave {seen['out']}"


@requires_cuda
@check("device", weight=2)
def test_cuda_forward(sub):
    model = sub.MLP(8, [16], 3).to("cuda")
    out = model(torch.randn(4, 8, device="cuda"))
    assert out.device.type == "cuda"
    assert_shape(out, (4, 3))
