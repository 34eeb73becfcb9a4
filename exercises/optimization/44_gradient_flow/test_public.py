"""Public checks for 44_gradient_flow: run them with `grader check 44`.

Models are built and run inside probes (functions that run next to your code), and what the
checks need comes back as plain data.
"""
import torch

from grader.testing import assert_close, check


def _shape_and_names(mod):
    model = mod.make_deep_mlp(3, 8, "relu", True, "default")
    out = model(torch.randn(5, 8))
    return tuple(out.shape), sorted(n for n, _ in model.named_parameters())


@check("value")
def test_deep_mlp_layout(sub):
    shape, names = sub.probe(_shape_and_names, sub)
    assert shape == (5, 1), f"make_deep_mlp(3, 8, ...) on a batch of 5 returned shape {shape}, expected (5, 1)"
    want = sorted([f"blocks.{i}.{k}" for i in range(3) for k in ("weight", "bias")] + ["head.weight", "head.bias"])
    assert names == want, f"the parameters are {names}, expected {want}"


def _norms(mod, x):
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1))
    model(x).sum().backward()
    got = mod.layer_grad_norms(model)
    return got, {n: p.grad.clone() for n, p in model.named_parameters()}


@check("value")
def test_grad_norms_of_a_small_model(sub):
    got, grads = sub.probe(_norms, sub, torch.randn(6, 3))
    assert isinstance(got, dict) and sorted(got) == ["0.weight", "2.weight"], \
        f"layer_grad_norms returned {got!r}, expected a dict with the keys '0.weight' and '2.weight'"
    for name in got:
        assert type(got[name]) is float, f"layer_grad_norms[{name!r}] is a {type(got[name]).__name__}, expected a float"
        assert_close(got[name], grads[name].norm().item(), rtol=1e-5, what=f"layer_grad_norms[{name!r}]")


def _stds(mod, x):
    torch.manual_seed(0)
    model = mod.make_deep_mlp(4, 16, "relu", False, "kaiming")
    stds = mod.activation_stds(model, x)
    left = sum(len(m._forward_hooks) for m in model.modules())
    return stds, left


@check("value")
def test_activation_stds_length_and_cleanup(sub):
    stds, left = sub.probe(_stds, sub, torch.randn(32, 16))
    assert isinstance(stds, list) and len(stds) == 4, f"activation_stds returned {stds!r}, expected a list of 4 floats"
    assert all(type(v) is float and v > 0 for v in stds), f"activation_stds returned {stds!r}, expected positive floats"
    assert left == 0, f"{left} forward hooks are still registered on the model after activation_stds returned"
