"""Hidden checks for 21_linear_semantics.

The ported layer is read through `nn.Module.named_parameters` and its instance `__dict__` in
probes; its values are compared in the judge with `x @ kernel + bias`. The ban on `F.linear`,
`nn.Linear` and `torch.addmm` in `manual_linear` is checked in the source and at run time
(`probes.forbid`).
"""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

from grader import probes
from grader.testing import assert_close, assert_dtype, check

FORBIDDEN = ["torch.nn.functional.linear", "torch.nn.Linear", "torch.addmm"]
# Their kernels, refused at torch's dispatcher (probes.forbid_ops): a reference kept in a list, a
# name built at run time or torch.ops.aten reaches them all the same.
FORBIDDEN_OPS = ("linear", "addmm")


@check("value", weight=2)
@pytest.mark.parametrize("lead", [(5,), (2, 5), (2, 3, 4), None], ids=["1-lead", "2-lead", "3-lead", "no-bias"])
def test_manual_linear_values(sub, lead):
    x = torch.randn(*(lead or (3,)), 4)
    weight, bias = torch.randn(7, 4), None if lead is None else torch.randn(7)
    assert_close(sub.manual_linear(x, weight, bias), F.linear(x, weight, bias),
                 what=f"manual_linear for x of shape {tuple(x.shape)}, weight (7, 4), bias {'None' if bias is None else '(7,)'}")


@check("api")
def test_manual_linear_forbidden(sub):
    sub.static.require_implemented("manual_linear")
    node = sub.static.function("manual_linear")
    inside = range(node.lineno, (node.end_lineno or node.lineno) + 1)
    for api in FORBIDDEN:
        lines = [line for line in sub.static.uses(api) if line in inside]
        assert not lines, f"manual_linear uses {api} (line {lines[0]}): write the matrix product yourself"

    def guarded(mod, x, w, b):
        with probes.forbid("torch.nn.functional.linear", "torch.addmm", "torch.Tensor.addmm",
                           "torch.nn.Linear.forward", module=mod) as seen:
            # forbid_ops answers None for a call the spies refused
            out, ops = probes.forbid_ops(mod.manual_linear, FORBIDDEN_OPS, x, w, b)
        return seen.names() + probes.at_dispatcher(ops), out

    x, w, b = torch.randn(6, 5), torch.randn(3, 5), torch.randn(3)
    called, out = sub.probe(guarded, sub, x, w, b)
    assert not called, f"manual_linear called {sorted(set(called))}: compute x @ weight.T + bias yourself"
    assert_close(out, F.linear(x, w, b), what="manual_linear under the runtime guard")


LAYOUTS = ["C", "F", "strided"]


def _layout(arr, layout):
    """`arr`'s values in another memory layout, built in the worker (pickling makes arrays
    contiguous): C order, Fortran order (a float32 Fortran kernel's transpose is C-contiguous, so
    `np.ascontiguousarray(kernel.T)` is a view of it), or a positive-strided view into a bigger array."""
    import numpy as np

    if layout == "F":
        return np.asfortranarray(arr)
    if layout == "strided":
        big = np.zeros(tuple(2 * n + 1 for n in arr.shape), dtype=arr.dtype)
        view = big[tuple(slice(1, None, 2) for _ in arr.shape)]
        view[...] = arr
        return view
    return np.ascontiguousarray(arr)


def _port(mod, kernel, bias, x=None, mutate=False, layout="C"):
    """Probe: the ported layer's parameters (nn.Module.named_parameters), its sizes and its output,
    for `kernel` and `bias` rebuilt in `layout` (see `_layout`)."""
    from torch import nn

    kernel, bias = _layout(kernel, layout), _layout(bias, layout)
    layer = mod.linear_from_in_out(kernel, bias)
    if not isinstance(layer, nn.Linear):
        return {"type": probes.qualified_name(layer)}
    params = dict(nn.Module.named_parameters(layer))
    attrs = object.__getattribute__(layer, "__dict__")
    seen = {"type": "Linear", "in": attrs.get("in_features"), "out_features": attrs.get("out_features"),
            "names": sorted(params),
            "params": {n: (p.detach().clone(), isinstance(p, nn.Parameter), p.requires_grad, p.is_contiguous())
                       for n, p in params.items()}}
    if x is not None:
        with torch.no_grad():
            seen["y"] = layer(x)
    if mutate:
        kernel += 100.0
        bias += 100.0
        seen["after"] = {n: p.detach().clone() for n, p in nn.Module.named_parameters(layer)}
    return seen


def _layer(seen):
    assert seen["type"] == "Linear", f"linear_from_in_out must return an nn.Linear, got {seen['type']}"
    assert seen["names"] == ["bias", "weight"], f"the layer's parameters are {seen['names']}"
    return seen["params"]


@check("shape")
def test_ported_layer_shape(sub):
    kernel, bias = np.random.randn(4, 8).astype(np.float32), np.random.randn(8).astype(np.float32)
    seen = sub.probe(_port, sub, kernel, bias)
    params = _layer(seen)
    assert tuple(params["weight"][0].shape) == (8, 4), \
        f"weight of a (4, 8) kernel must have shape (8, 4) (out, in), got {tuple(params['weight'][0].shape)}"
    assert (seen["in"], seen["out_features"]) == (4, 8), \
        f"in_features/out_features are {seen['in']}/{seen['out_features']}, expected 4/8"


@check("value", weight=2)
@pytest.mark.parametrize("shape, layout", [((6, 6), "C"), ((3, 5), "C"), ((3, 5), "F"), ((3, 5), "strided")],
                         ids=["square", "rect", "rect-fortran", "rect-strided"])
def test_ported_layer_values(sub, shape, layout):
    kernel = np.random.randn(*shape).astype(np.float32)
    bias = np.random.randn(shape[1]).astype(np.float32)
    x = torch.randn(7, shape[0])
    seen = sub.probe(_port, sub, kernel, bias, x, False, layout)
    params = _layer(seen)
    expected = x @ torch.from_numpy(kernel) + torch.from_numpy(bias)
    assert_close(seen["y"], expected, what=f"layer(x) for a {shape} kernel in {layout} layout (x @ kernel + bias)")
    assert_close(x @ params["weight"][0].T + params["bias"][0], expected,
                 what="x @ weight.T + bias from the layer's registered parameters")


@check("dtype")
def test_float64_kernel_gives_float32(sub):
    kernel, bias = np.random.randn(3, 2), np.random.randn(2)
    x = torch.randn(4, 3)
    seen = sub.probe(_port, sub, kernel, bias, x)
    params = _layer(seen)
    for name in ("weight", "bias"):
        assert_dtype(params[name][0], torch.float32, what=f"{name} of a layer ported from a float64 kernel")
    expected = (x.double() @ torch.from_numpy(kernel) + torch.from_numpy(bias)).float()
    assert_close(seen["y"], expected, what="layer(x) for a float64 kernel")


@check("grad")
@pytest.mark.parametrize("layout", LAYOUTS, ids=["c-order", "fortran", "strided"])
def test_parameters_trainable_contiguous(sub, layout):
    kernel, bias = np.random.randn(5, 3).astype(np.float32), np.random.randn(3).astype(np.float32)
    params = _layer(sub.probe(_port, sub, kernel, bias, None, False, layout))
    for name in ("weight", "bias"):
        _, is_param, requires_grad, _ = params[name]
        assert is_param and requires_grad, f"{name} must be an nn.Parameter that requires grad"
    assert params["weight"][3], f"weight must be contiguous (a transposed view is not), kernel in {layout} layout"
    assert_close(params["weight"][0], torch.from_numpy(kernel).T, what="weight (kernel transposed)")


@check("state")
@pytest.mark.parametrize("layout, dtype", [("C", np.float32), ("F", np.float32), ("strided", np.float32),
                                           ("C", np.float64), ("F", np.float64)],
                         ids=["c-order-f32", "fortran-f32", "strided-f32", "c-order-f64", "fortran-f64"])
def test_no_memory_shared(sub, layout, dtype):
    # Every layout the contract allows: a copy that is skipped when the array "already fits"
    # (np.ascontiguousarray of a Fortran kernel's transpose, torch.from_numpy of a float32 bias)
    # shares memory in exactly one of these cases.
    kernel, bias = np.random.randn(4, 3).astype(dtype), np.random.randn(3).astype(dtype)
    seen = sub.probe(_port, sub, kernel, bias, None, True, layout)
    params = _layer(seen)
    assert_close(params["weight"][0], torch.from_numpy(kernel).T.float(), what="weight (kernel transposed)")
    for name in ("weight", "bias"):
        assert torch.equal(seen["after"][name], params[name][0]), (
            f"changing the NumPy arrays ({layout} layout, {np.dtype(dtype).name}) after the call changed the "
            f"layer's {name}: copy, do not share memory")
