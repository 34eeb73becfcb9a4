"""Hidden checks for 18_custom_mlp_module."""
import pytest
import torch

from grader.testing import assert_close, assert_shape, check, reference, requires_cuda

ref = reference(__file__)


@check("shape", weight=2)
def test_output_shapes(sub):
    model = sub.MLP(10, [32, 16], 4)
    assert_shape(model(torch.randn(32, 10)), (32, 4))
    assert_shape(model(torch.randn(4, 7, 10)), (4, 7, 4), what="output for a (4, 7, 10) input")
    single = sub.MLP(10, [], 4)
    assert_shape(single(torch.randn(3, 10)), (3, 4), what="output with hidden=[]")
    assert len(single.layers) == 0, "hidden=[] must give no hidden layers, only the head"


@check("state", weight=2)
def test_state_dict_keys(sub):
    model = sub.MLP(10, [32, 16], 4)
    expected = ["layers.0.weight", "layers.0.bias", "layers.1.weight", "layers.1.bias", "head.weight", "head.bias"]
    keys = list(model.state_dict())
    assert sorted(keys) == sorted(expected), f"expected state_dict keys {expected}, got {keys}"
    count = sum(p.numel() for p in model.parameters())
    assert count == 10 * 32 + 32 + 32 * 16 + 16 + 16 * 4 + 4, f"unexpected parameter count {count}"


@check("state", weight=2)
def test_loads_reference_state_dict(sub):
    expected_model = ref.MLP(6, [12, 5], 3).eval()
    model = sub.MLP(6, [12, 5], 3)
    model.load_state_dict(expected_model.state_dict(), strict=True)
    model.eval()
    x = torch.randn(9, 6)
    with torch.no_grad():
        assert_close(model(x), expected_model(x), what="eval output after loading the reference weights")


@check("api", weight=2)
def test_hooks_fire_once(sub):
    def count_linear_calls(mod):
        from torch import nn

        model = mod.MLP(6, [8, 8], 2)
        calls = []
        for name, m in model.named_modules():
            if isinstance(m, nn.Linear):
                m.register_forward_hook(lambda module, args, out, name=name: calls.append(name))
        model(torch.randn(3, 6))
        return calls

    calls = sub.probe(count_linear_calls, sub)
    assert sorted(calls) == ["head", "layers.0", "layers.1"], \
        f"forward hooks saw {calls}: call submodules as layer(x), not layer.forward(x)"


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
    flags = sub.probe(lambda m: [mod.training for mod in m.modules()], model)
    assert not any(flags), "model.eval() must set training=False on every submodule"


@check("grad")
def test_every_parameter_gets_grad(sub):
    model = sub.MLP(5, [7, 6], 2)
    model(torch.randn(4, 5)).sum().backward()
    grads = sub.probe(lambda m: {n: p.grad is not None for n, p in m.named_parameters()}, model)
    missing = [n for n, has in grads.items() if not has]
    assert grads and not missing, f"no gradient reached {missing}"


@check("device")
def test_meta_device_fallback(sub):
    def moved_devices(mod):
        model = mod.MLP(4, [8], 2).to("meta")
        plain = [type(v).__name__ for v in vars(model).values() if isinstance(v, list)]
        hidden = [p.device.type for layer in getattr(model, "layers", []) for p in layer.parameters()]
        return {"params": sorted({p.device.type for p in model.parameters()}), "hidden": hidden, "lists": plain}

    seen = sub.probe(moved_devices, sub)
    assert seen["params"] == ["meta"], f"model.to('meta') left parameters on {seen['params']}"
    assert seen["hidden"] and set(seen["hidden"]) == {"meta"}, \
        "the hidden layers did not move with model.to(): register them in an nn.ModuleList"


@requires_cuda
@check("device", weight=2)
def test_cuda_forward(sub):
    model = sub.MLP(8, [16], 3).to("cuda")
    out = model(torch.randn(4, 8, device="cuda"))
    assert out.device.type == "cuda"


