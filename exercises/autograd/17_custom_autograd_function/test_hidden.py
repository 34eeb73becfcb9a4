"""Hidden checks for 17_custom_autograd_function."""
import ast

import pytest
import torch

from grader.testing import assert_close, assert_device, assert_dtype, assert_shape, check, requires_cuda

BOUNDARY = [-2.5, -1.0, -0.999, -0.3, 0.0, 0.4, 0.999, 1.0, 3.0]


@check("value", weight=2)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16], ids=["float32", "float64", "float16"])
def test_sign_values(sub, dtype):
    x = torch.tensor(BOUNDARY, dtype=dtype)
    out = sub.SignSTE.apply(x)
    assert_dtype(out, dtype, what="SignSTE output")
    assert_shape(out, x.shape, what="SignSTE output")
    values = sorted(set(out.tolist()))
    assert set(values) <= {-1.0, 1.0}, f"SignSTE produced values {values}: only -1 and +1 are allowed (sign(0) = +1)"
    assert torch.equal(out, torch.where(x >= 0, 1.0, -1.0).to(dtype)), (
        f"SignSTE({x.tolist()}) gave {out.tolist()}: expected -1 for x < 0 and +1 for x >= 0")


@check("grad", weight=2)
def test_sign_ste_gradient(sub):
    x = torch.tensor(BOUNDARY + torch.randn(7).mul(2).tolist(), dtype=torch.float64, requires_grad=True)
    grad_out = torch.randn(x.shape, dtype=torch.float64)
    sub.SignSTE.apply(x).backward(grad_out)
    assert x.grad is not None, "no gradient reached x through SignSTE"
    assert_close(x.grad, grad_out * (x.detach().abs() <= 1), what="SignSTE input gradient (grad_out * (|x| <= 1), "
                                                                   "x = +-1 included)")


@check("value", weight=2)
@pytest.mark.parametrize("dim", [0, 1])
def test_logsumexp_extreme_values(sub, dim):
    x = torch.randn(4, 5) * 3
    x[0, 0], x[1, 2], x[3, :] = 1000.0, -1000.0, 1000.0
    x[2, :] = -1000.0
    out = sub.StableLogSumExp.apply(x, dim)
    assert torch.isfinite(out).all(), f"StableLogSumExp over dim={dim} gave non-finite values {out.tolist()}: " \
                                      "subtract the max before exp()"
    assert_close(out, torch.logsumexp(x, dim=dim), what=f"logsumexp over dim={dim}")


@check("grad", weight=3)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_logsumexp_gradcheck(sub, dim):
    x = torch.randn(2, 3, 4, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: sub.StableLogSumExp.apply(t, dim), (x,), atol=1e-6, rtol=1e-5)


@check("grad")
def test_backward_leaves_grad_output_alone(sub):
    # autograd hands backward the caller's own grad_outputs tensor: an in-place change there
    # (grad_out.unsqueeze_, grad_out.mul_) reshapes or rewrites the caller's tensor
    def observe(mod):
        x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
        seen = {}
        for name, fn, g in (("StableLogSumExp", lambda t: mod.StableLogSumExp.apply(t, 1), torch.randn(3, dtype=torch.float64)),
                            ("SignSTE", mod.SignSTE.apply, torch.randn(3, 4, dtype=torch.float64))):
            before = g.clone()
            (grad,) = torch.autograd.grad(fn(x), x, grad_outputs=g)
            seen[name] = (tuple(before.shape), tuple(g.shape), bool(g.shape == before.shape and torch.equal(g, before)),
                          grad.detach().clone(), before)
        return x.detach(), seen

    x, seen = sub.probe(observe, sub)
    for name, (before, after, same, grad, g) in seen.items():
        assert same, (f"{name}'s backward changed the caller's grad_outputs tensor (shape {before} -> {after}): "
                      "grad_out may be the caller's own tensor; use out-of-place ops (unsqueeze, not unsqueeze_)")
    _, _, _, grad, g = seen["StableLogSumExp"]
    assert_close(grad, g.unsqueeze(1) * torch.softmax(x, dim=1), what="StableLogSumExp gradient for grad_outputs g")
    _, _, _, grad, g = seen["SignSTE"]
    assert_close(grad, g * (x.abs() <= 1), what="SignSTE gradient for grad_outputs g")


@check("api", weight=2)
def test_saves_with_save_for_backward(sub):
    def saved_tensor_usage(mod):
        from grader import probes  # attributes read directly, never through the candidate's accessors

        def tensor_attrs(obj):
            found = []
            for key, value in probes.instance_attrs(obj).items():
                values = value if isinstance(value, (list, tuple)) else \
                    value.values() if isinstance(value, dict) else [value]
                if any(isinstance(v, torch.Tensor) for v in values):
                    found.append(key)
            return found

        def observe(apply):
            x = torch.randn(3, 4, requires_grad=True)
            packed = []
            with torch.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t.shape) or t, lambda t: t):
                out = apply(x)
            return {"packed": len(packed), "tensor_attrs": tensor_attrs(out.grad_fn)}

        return {"SignSTE": observe(lambda x: mod.SignSTE.apply(x)),
                "StableLogSumExp": observe(lambda x: mod.StableLogSumExp.apply(x, 1))}

    report = sub.probe(saved_tensor_usage, sub)
    for name, seen in report.items():
        assert not seen["tensor_attrs"], (
            f"{name} keeps tensors as ctx attributes ({', '.join('ctx.' + a for a in seen['tensor_attrs'])}): "
            "use ctx.save_for_backward, which checks for in-place changes and frees them after backward")
        assert seen["packed"] >= 1, f"{name} saved no tensor with ctx.save_for_backward during forward"


def _logsumexp_lines(static):
    # torch.logsumexp / torch.special.logsumexp through any import alias, and the Tensor method x.logsumexp(...)
    lines = static.uses("torch.logsumexp") + static.uses("torch.special.logsumexp")
    lines += [node.lineno for node in ast.walk(static.tree) if isinstance(node, ast.Attribute) and node.attr == "logsumexp"]
    return sorted(set(lines))


@check("api", weight=2)
def test_no_builtin_logsumexp(sub):
    sub.static.require_implemented("StableLogSumExp.forward", "StableLogSumExp.backward")
    lines = _logsumexp_lines(sub.static)
    assert not lines, f"logsumexp is referred to at line {lines[0]}: StableLogSumExp must compute it by hand"

    def builtin_calls(mod, x):
        from grader import probes

        def forward_and_backward():
            out = mod.StableLogSumExp.apply(x, 1)
            try:
                out.sum().backward()
            except Exception:  # noqa: BLE001 - a broken backward is graded by the gradient checks
                pass
            return out

        # The spy sees the three names called through the attribute, through a name the module
        # imported, and (its call watch) through any other reference; the dispatcher sees
        # aten.logsumexp however it is reached (a kept reference, torch._refs, a default argument).
        with probes.spy("torch.logsumexp", "torch.Tensor.logsumexp", "torch.special.logsumexp", module=mod) as seen:
            out, reached = probes.forbid_ops(forward_and_backward, ("logsumexp",))
        called = seen.names() + probes.at_dispatcher(reached[:1])
        value = out.detach().clone() if isinstance(out, torch.Tensor) else type(out).__name__
        return called, value, None if x.grad is None else x.grad.clone()

    x = torch.randn(3, 5, requires_grad=True)
    called, value, grad = sub.probe(builtin_calls, sub, x)
    assert not called, f"StableLogSumExp called {', '.join(sorted(set(called)))}: compute logsumexp by hand"
    assert isinstance(value, torch.Tensor), f"StableLogSumExp.apply(x, 1) returned {value}, not a tensor"
    assert_close(value, torch.logsumexp(x.detach(), dim=1), what="StableLogSumExp.apply(x, 1)")
    assert grad is not None, "no gradient reached x through StableLogSumExp.apply(x, 1).sum().backward()"
    assert_close(grad, torch.softmax(x.detach(), dim=1), what="x.grad after StableLogSumExp.apply(x, 1).sum()"
                 ".backward() (expected softmax(x, 1))")


@check("shape")
@pytest.mark.parametrize("dim", [0, 1, 2, -1, -2, -3])
def test_output_shape(sub, dim):
    x = torch.randn(2, 3, 4)
    expected = list(x.shape)
    del expected[dim]
    out = sub.StableLogSumExp.apply(x, dim)
    assert_shape(out, tuple(expected), what=f"StableLogSumExp output for dim={dim} on a (2, 3, 4) input")
    assert_close(out, torch.logsumexp(x, dim=dim), what=f"logsumexp over dim={dim}")


@requires_cuda
@check("device", weight=2)
def test_cuda_outputs_and_grads(sub):
    x = torch.randn(3, 4, device="cuda", requires_grad=True)
    out = sub.StableLogSumExp.apply(x, -1)
    assert_device(out, "cuda", what="StableLogSumExp output")
    out.sum().backward()
    assert_device(x.grad, "cuda", what="StableLogSumExp input gradient")
    assert_close(x.grad, torch.softmax(x.detach(), dim=-1), what="StableLogSumExp gradient on CUDA")

    y = torch.randn(8, device="cuda", requires_grad=True)
    sign = sub.SignSTE.apply(y)
    assert_device(sign, "cuda", what="SignSTE output")
    sign.sum().backward()
    assert_device(y.grad, "cuda", what="SignSTE input gradient")
    assert_close(y.grad, (y.detach().abs() <= 1).float(), what="SignSTE gradient on CUDA")
