"""Hidden checks for 30_stable_activations.

Expected values are torch's own functions, computed in the judge; the numerically hostile inputs
(±1000 logits, a logit 2000 below the row's max, -inf masks, float16/bfloat16) come from
`grader.testing.hostile_logits` and are compared with `torch_expected` (torch's function in float64,
rounded once to the input's dtype). The ban on torch's softmax family and activation functions is
checked in the source and at run time (`probes.forbid`, decided from what it recorded).
"""
import ast

import pytest
import torch
import torch.nn.functional as F

from grader import probes
from grader.testing import (
    HOSTILE_KINDS,
    assert_close,
    assert_device,
    assert_dtype,
    assert_shape,
    check,
    hostile_logits,
    requires_cuda,
    torch_expected,
)

NAMES = ["softmax", "log_softmax", "gelu_tanh", "silu", "leaky_relu"]

# torch's own function for each, and the extra arguments the check passes
TORCH = {
    "softmax": lambda x, dim=1: F.softmax(x, dim),
    "log_softmax": lambda x, dim=1: F.log_softmax(x, dim),
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "silu": F.silu,
    "leaky_relu": lambda x, negative_slope=0.01: F.leaky_relu(x, negative_slope),
}
ARGS = {"softmax": [(1,)], "log_softmax": [(1,)], "gelu_tanh": [()], "silu": [()],
        "leaky_relu": [(), (0.2,), (3.0,)]}

FORBIDDEN = ["torch.softmax", "torch.log_softmax", "torch.logsumexp", "torch.nn.functional.softmax",
             "torch.nn.functional.log_softmax", "torch.nn.functional.gelu", "torch.nn.functional.silu",
             "torch.nn.functional.leaky_relu", "torch.special.softmax", "torch.special.log_softmax",
             "torch.special.logsumexp"]
RUNTIME_FORBIDDEN = FORBIDDEN + ["torch.Tensor.softmax", "torch.Tensor.log_softmax", "torch.Tensor.logsumexp"]
METHODS = {"softmax", "log_softmax", "logsumexp"}


def _call(sub, name, x, *args):
    return getattr(sub, name)(x, *args)


@check("value", weight=2)
@pytest.mark.parametrize("name", NAMES)
def test_matches_torch(sub, name):
    for dtype, atol in ((torch.float64, 1e-10), (torch.float32, 1e-6)):
        x = (torch.randn(6, 9, dtype=torch.float64) * 3).to(dtype)
        for args in ARGS[name]:
            assert_close(_call(sub, name, x, *args), TORCH[name](x, *args), atol=atol,
                         what=f"{name}(x{''.join(f', {a}' for a in args)}) for {dtype} x")


def _hostile(mod, cases):
    """Probe: softmax and log_softmax of every case (one round trip for all of them)."""
    return [(mod.softmax(x, dim), mod.log_softmax(x, dim)) for x, dim in cases]


@check("value", weight=2)
def test_hostile_logits(sub):
    # large: ±1000 (exp overflows); spread: one logit 2000 above the others (log(softmax) -> -inf);
    # masked: -inf entries (softmax 0, log-softmax -inf), in float32, float16 and bfloat16
    cases = [(hostile_logits(kind, shape, dim=dim, dtype=dtype), dim, kind)
             for kind in HOSTILE_KINDS for dtype in (torch.float32, torch.float16, torch.bfloat16)
             for dim, shape in ((1, (4, 7)), (0, (6, 3)))]
    cases.append((torch.tensor([[1000.0, -1000.0, 0.0]]), 1, "a row [1000, -1000, 0]"))
    outs = sub.probe(_hostile, sub, [(x, dim) for x, dim, _ in cases])
    for (x, dim, kind), pair in zip(cases, outs, strict=True):
        for name, out in zip(("softmax", "log_softmax"), pair, strict=True):
            where = f"{name}(x, dim={dim}) for {kind} {x.dtype} logits"
            if kind != "masked":
                assert isinstance(out, torch.Tensor) and torch.isfinite(out).all(), \
                    f"{where} has non-finite values: subtract the max along dim first"
            assert_close(out, torch_expected(TORCH[name], x, dim=dim), what=where)


@check("value")
def test_softmax_dims(sub):
    x = torch.randn(3, 5)
    for dim in (0, -1, 1):
        p = sub.softmax(x, dim)
        assert_close(p, F.softmax(x, dim), what=f"softmax(x, {dim}) for x of shape (3, 5)")
        assert_close(p.sum(dim), torch.ones(5 if dim == 0 else 3),
                     what=f"softmax(x, {dim}).sum({dim})")
        assert_close(sub.log_softmax(x, dim), F.log_softmax(x, dim), what=f"log_softmax(x, {dim}) for x (3, 5)")
    y = torch.randn(2, 3, 4)
    assert_close(sub.softmax(y, 1), F.softmax(y, 1), what="softmax(y, 1) for y of shape (2, 3, 4)")
    assert_close(sub.log_softmax(y, -2), F.log_softmax(y, -2), what="log_softmax(y, -2) for y (2, 3, 4)")


@check("grad")
def test_gradcheck(sub):
    x = torch.randn(3, 4, dtype=torch.float64)
    x = (x + 0.1 * x.sign()).requires_grad_()        # away from leaky_relu's kink at 0
    for name in NAMES:
        for args in ARGS[name]:
            assert_close(_call(sub, name, x, *args), TORCH[name](x, *args), what=f"{name}{args} in float64")
            assert torch.autograd.gradcheck(lambda t, a=args, n=name: _call(sub, n, t, *a), (x,)), \
                f"gradcheck failed for {name}{args}"


@check("grad")
def test_grads_finite_at_extremes(sub):
    base = torch.tensor([[1000.0, -1000.0, 0.5, -3.0], [-1000.0, -999.0, 2.0, 1000.0]])
    w = torch.randn(2, 4)
    for name in NAMES:
        x = base.clone().requires_grad_()
        out = getattr(sub, name)(x, 1) if name in ("softmax", "log_softmax") else getattr(sub, name)(x)
        assert isinstance(out, torch.Tensor) and out.requires_grad, f"{name}(x) carries no gradient"
        (out * w).sum().backward()
        assert x.grad is not None and torch.isfinite(x.grad).all(), \
            f"{name} has non-finite gradients for inputs at ±1000"
        t = base.clone().requires_grad_()
        expected = TORCH[name](t, 1) if name in ("softmax", "log_softmax") else TORCH[name](t)
        (expected * w).sum().backward()
        assert_close(x.grad, t.grad, what=f"gradient of {name} at ±1000")


# The kernels of the forbidden functions, refused at torch's dispatcher (probes.forbid_ops): a
# reference kept in a list, a name built at run time or torch.ops.aten reaches them all the same.
FORBIDDEN_OPS = ("_softmax", "_log_softmax", "logsumexp", "gelu", "silu", "leaky_relu")


def _guarded(mod, x, names, targets):
    reached = []
    with probes.forbid(*targets, module=mod) as seen:
        outs = {}
        for name in names:  # forbid_ops answers None for a call the spies refused
            args = (x, 1) if name in ("softmax", "log_softmax") else (x,)
            outs[name], ops = probes.forbid_ops(getattr(mod, name), FORBIDDEN_OPS, *args)
            reached += probes.at_dispatcher(ops)
    return seen.names() + reached, outs


@check("api")
def test_forbidden_apis(sub):
    sub.static.require_implemented(*NAMES)
    x = torch.randn(4, 6)
    called, outs = sub.probe(_guarded, sub, x, NAMES, RUNTIME_FORBIDDEN)
    assert not called, f"your functions called {sorted(set(called))} at run time: write them yourself"
    for name in NAMES:
        assert_close(outs[name], TORCH[name](x, 1) if name in ("softmax", "log_softmax") else TORCH[name](x),
                     what=f"{name} under the runtime guard")
    for api in FORBIDDEN:
        lines = sub.static.uses(api)
        assert not lines, f"{api} is not allowed (line {lines[0]}): write it from exp, log, max and sums"
    methods = sorted({(node.lineno, node.attr) for node in ast.walk(sub.static.tree)
                      if isinstance(node, ast.Attribute) and node.attr in METHODS})
    assert not methods, f"`.{methods[0][1]}` is not allowed (line {methods[0][0]}): write it yourself"


@check("dtype")
def test_dtype_preserved(sub):
    # bfloat16 keeps 8 significant bits: an intermediate of size M (x - (max + log sum) rounds
    # max + log sum) carries an error up to M / 256, beyond 1e-2 for |x| of a few units, so the
    # bfloat16 values get atol (1 + max|x|) / 128; float16 (11 bits) keeps the default 1e-2
    for dtype, name in [(dtype, name) for dtype in (torch.bfloat16, torch.float16) for name in NAMES]:
        x = (torch.randn(5, 8, dtype=torch.float64) * 2).to(dtype)
        atol = (1 + x.abs().max().item()) / 128 if dtype == torch.bfloat16 else 1e-2
        out = getattr(sub, name)(x, 1) if name in ("softmax", "log_softmax") else getattr(sub, name)(x)
        assert_dtype(out, dtype, what=f"{name} of a {dtype} input")
        expected = torch_expected(TORCH[name], x, 1) if name in ("softmax", "log_softmax") \
            else torch_expected(TORCH[name], x)
        assert_close(out, expected, atol=atol, what=f"{name} of a {dtype} input")


@check("state")
def test_input_untouched(sub):
    def observe(mod, x, names):
        outs, changed = {}, []
        for name in names:
            before, version = x.clone(), x._version
            outs[name] = getattr(mod, name)(x, 1) if name in ("softmax", "log_softmax") else getattr(mod, name)(x)
            if x._version != version or not torch.equal(x, before):
                changed.append(name)
        return changed, outs

    x = torch.randn(4, 6) * 5
    changed, outs = sub.probe(observe, sub, x, NAMES)
    for name in NAMES:
        assert_close(outs[name], TORCH[name](x, 1) if name in ("softmax", "log_softmax") else TORCH[name](x),
                     what=name)
    assert not changed, f"{', '.join(changed)} modified the input tensor in place: work on new tensors"


@check("device")
def test_meta_no_data_dependence(sub):
    # CPU stand-in for the CUDA sync check: meta tensors have no values, so `.item()`, Python
    # branches on data and tensors created on the CPU (torch.zeros(x.shape)) fail here as they
    # would sync (or fail) on CUDA.
    x = torch.empty(3, 5, device="meta", dtype=torch.float32)
    real = torch.randn(3, 5)
    for name in NAMES:
        got = getattr(sub, name)(real, 1) if name in ("softmax", "log_softmax") else getattr(sub, name)(real)
        assert_close(got, TORCH[name](real, 1) if name in ("softmax", "log_softmax") else TORCH[name](real),
                     what=f"{name} of a CPU input")
        out = getattr(sub, name)(x, 1) if name in ("softmax", "log_softmax") else getattr(sub, name)(x)
        assert_device(out, "meta", what=f"{name} of a meta tensor")
        assert_shape(out, (3, 5), what=f"{name} of a meta tensor")
        assert_dtype(out, torch.float32, what=f"{name} of a meta tensor")


@requires_cuda
@check("device")
def test_cuda_no_host_sync(sub):
    def run_without_sync(mod, names):
        x = torch.randn(64, 33, device="cuda") * 50
        torch.cuda.synchronize()
        torch.cuda.set_sync_debug_mode("error")
        try:
            outs = [getattr(mod, n)(x, 1) if n in ("softmax", "log_softmax") else getattr(mod, n)(x) for n in names]
        finally:
            torch.cuda.set_sync_debug_mode("default")
        return x, outs

    x, outs = sub.probe(run_without_sync, sub, NAMES)
    for name, out in zip(NAMES, outs, strict=True):
        assert_device(out, "cuda", what=name)
        expected = TORCH[name](x, 1) if name in ("softmax", "log_softmax") else TORCH[name](x)
        assert_close(out, expected, atol=1e-5, what=f"{name} on CUDA")
