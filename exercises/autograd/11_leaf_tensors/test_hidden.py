"""Hidden checks for 11_leaf_tensors.

Leaf status and `.grad` of a tensor made in the worker exist only there (a tensor that crosses the
boundary arrives as a fresh copy), so every leaf observation is a probe.
"""
import ast

import numpy as np
import pytest
import torch

from grader.testing import assert_close, assert_dtype, check, requires_cuda


def _leaf_probe():
    """A probe (built here so that it is pickled by value) reporting how make_trainable's result
    looks in the worker, for one `data` and `device`."""

    def leaf_info(mod, data, device):
        t = mod.make_trainable(data, device)
        return {"is_tensor": isinstance(t, torch.Tensor),
                "is_leaf": bool(t.is_leaf), "requires_grad": bool(t.requires_grad),
                "grad_fn": type(t.grad_fn).__name__ if t.grad_fn is not None else None,
                "device": str(t.device.type), "dtype": t.dtype}

    return leaf_info


def _assert_leaf(info, where):
    assert info["is_tensor"], f"make_trainable(...{where}) did not return a tensor"
    assert info["requires_grad"], f"make_trainable(...{where}) returned a tensor with requires_grad=False"
    assert info["is_leaf"], (
        f"make_trainable(...{where}) returned a NON-leaf (grad_fn={info['grad_fn']}): an operation such as "
        ".float(), .to() or .cuda() ran after requires_grad was set, so .grad will never be populated")


@check("grad", weight=2)
@pytest.mark.parametrize("data", [[1, 2, 3], [[0.5, -1.0], [2.0, 4.0]]], ids=["int_list", "float_nested"])
def test_leaf_receives_grad(sub, data):
    def backward_once(mod, data):
        t = mod.make_trainable(data)
        info = {"is_leaf": bool(t.is_leaf), "requires_grad": bool(t.requires_grad),
                "grad_fn": type(t.grad_fn).__name__ if t.grad_fn is not None else None}
        (t ** 2).sum().backward()
        info["grad"] = None if t.grad is None else t.grad.detach().clone()
        return info

    info = sub.probe(backward_once, sub, data)
    assert info["requires_grad"], "the result does not require grad"
    expected = 2 * torch.tensor(data, dtype=torch.float32)
    assert info["grad"] is not None, (
        f"after (t**2).sum().backward() t.grad is None: t is not a leaf (grad_fn={info['grad_fn']})")
    assert info["is_leaf"], "t is not a leaf"
    assert_close(info["grad"], expected, what="t.grad after (t**2).sum().backward()")


@check("dtype")
@pytest.mark.parametrize("data", [
    [1, 2, 3],
    [0.25, -1.5],
    np.array([[1.0, 2.5], [-3.0, 0.125]], dtype=np.float64),
], ids=["int_list", "float_list", "float64_ndarray"])
def test_float32_for_all_inputs(sub, data):
    with torch.no_grad():  # plain data back, no gradient bridge needed
        t = sub.make_trainable(data)
    expected = torch.tensor(np.asarray(data), dtype=torch.float32)
    assert_dtype(t, torch.float32)
    assert t.requires_grad, "the result must require grad"
    assert_close(t, expected, what="make_trainable(data)")


@requires_cuda
@check("device")
@pytest.mark.parametrize("dev", ["cuda", "cuda:0"], ids=["cuda", "cuda0"])
def test_cuda_leaf(sub, dev):
    info = sub.probe(_leaf_probe(), sub, [1, 2, 3], dev)
    assert info["device"] == "cuda", f"expected a CUDA tensor, got one on {info['device']}"
    assert info["dtype"] == torch.float32, f"expected float32, got {info['dtype']}"
    _assert_leaf(info, f", device={dev!r}")


@check("device")
def test_meta_leaf_fallback(sub):
    # CPU fallback of the CUDA check: moving to `meta` is a recorded operation exactly like .cuda().
    leaf_info = _leaf_probe()
    info = sub.probe(leaf_info, sub, [1, 2, 3], "meta")
    assert info["device"] == "meta", f"expected a tensor on the meta device, got one on {info['device']}"
    assert info["dtype"] == torch.float32, f"expected float32, got {info['dtype']}"
    _assert_leaf(info, ", device='meta'")
    info = sub.probe(leaf_info, sub, [1.0, 2.0], torch.device("meta"))
    _assert_leaf(info, ", device=torch.device('meta')")


# Variable's class is made by VariableMeta: a call of the class (any reference to it) and an
# isinstance test against it run VariableMeta's __call__ / __instancecheck__; its C base is
# reached by name.
VARIABLE_ROUTES = ("torch.autograd.variable.VariableMeta.__call__",
                   "torch.autograd.variable.VariableMeta.__instancecheck__", "torch._C._LegacyVariableBase")


def _variable_calls(mod, routes):
    """Probe: make_trainable and is_trainable_leaf on a few inputs, with Variable's routes watched."""
    from grader import probes

    with probes.spy(*routes, module=mod) as seen:
        for data, device in (([1, 2], "cpu"), ([[1.5, -2.0]], "meta"), (np.arange(3.0), torch.device("cpu"))):
            try:
                t = mod.make_trainable(data, device)
                mod.is_trainable_leaf(t)
            except NotImplementedError:
                raise
            except Exception:  # noqa: BLE001 - a wrong answer is graded by the value checks
                pass
        for t in (torch.zeros(2, requires_grad=True), torch.zeros(2), torch.zeros(2, requires_grad=True) * 2):
            try:
                mod.is_trainable_leaf(t)
            except Exception:  # noqa: BLE001
                pass
    return seen.names()


@check("api")
def test_no_variable(sub):
    sub.static.require_implemented("make_trainable", "is_trainable_leaf")
    with torch.no_grad():  # plain data back, no gradient bridge needed
        t = sub.make_trainable([1, 2])
    assert_dtype(t, torch.float32)
    assert t.requires_grad, "make_trainable([1, 2]) must require grad"
    assert_close(t, torch.tensor([1.0, 2.0]), what="make_trainable([1, 2])")

    def classify(mod):
        p = torch.zeros(2, requires_grad=True)
        return mod.is_trainable_leaf(p), mod.is_trainable_leaf(p * 2)

    got = sub.probe(classify, sub)
    assert got == (True, False) and all(isinstance(v, bool) for v in got), (
        f"is_trainable_leaf gave {got} for (a leaf requiring grad, that leaf * 2), expected (True, False)")
    # at run time (authoritative: `getattr(torch.autograd, "Vari" + "able")`, an alias or a
    # reference kept from import is the same class, and constructing it or testing isinstance
    # against it goes through its metaclass)
    used = sub.probe(_variable_calls, sub, VARIABLE_ROUTES)
    assert not used, (f"make_trainable / is_trainable_leaf used Variable at run time ({', '.join(sorted(set(used)))}), "
                      "which was merged into Tensor in PyTorch 0.4: create the tensor with requires_grad=True instead")
    # and in the source (a secondary reason: a branch the run did not take)
    lines = set(sub.static.uses("torch.autograd.Variable")) | set(sub.static.uses("torch.autograd.variable"))
    for node in ast.walk(sub.static.tree):
        if isinstance(node, ast.Name) and node.id == "Variable":
            lines.add(node.lineno)
        elif isinstance(node, ast.Attribute) and node.attr == "Variable":
            lines.add(node.lineno)
        elif isinstance(node, ast.ImportFrom) and any(a.name == "Variable" for a in node.names):
            lines.add(node.lineno)
    assert not lines, (f"line {min(lines)} uses Variable, which was merged into Tensor in PyTorch 0.4: "
                       f"create the tensor with requires_grad=True instead")


@check("value", weight=2)
def test_is_trainable_leaf(sub):
    def classify(mod):
        from torch import nn

        p = nn.Parameter(torch.randn(3))
        cases = {
            "nn.Parameter": p,
            "torch.zeros(3, requires_grad=True)": torch.zeros(3, requires_grad=True),
            "p * 2": p * 2,
            "p.detach()": p.detach(),
            "torch.zeros(3) (requires_grad=False)": torch.zeros(3),
        }
        return {name: mod.is_trainable_leaf(t) for name, t in cases.items()}

    got = sub.probe(classify, sub)
    expected = {"nn.Parameter": True, "torch.zeros(3, requires_grad=True)": True, "p * 2": False,
                "p.detach()": False, "torch.zeros(3) (requires_grad=False)": False}
    for name, want in expected.items():
        value = got[name]
        assert isinstance(value, bool), f"is_trainable_leaf({name}) returned {type(value).__name__}, not a bool"
        assert value is want, f"is_trainable_leaf({name}) returned {value}, expected {want}"
