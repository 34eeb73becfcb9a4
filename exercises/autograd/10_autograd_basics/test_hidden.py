"""Hidden checks for 10_autograd_basics."""
import pytest
import torch

from grader.testing import assert_close, assert_device, assert_dtype, check, requires_cuda


@check("value", weight=2)
@pytest.mark.parametrize("shape", [(5,), (3, 4)], ids=["vector", "matrix"])
def test_known_derivatives(sub, shape):
    x = torch.rand(shape, dtype=torch.float64) + 0.5
    assert_close(sub.elementwise_derivative(lambda t: t ** 3, x), 3 * x ** 2, what="d(x^3)/dx")
    assert_close(sub.elementwise_derivative(torch.sin, x), torch.cos(x), what="d(sin x)/dx")
    assert_close(sub.elementwise_derivative(torch.exp, x), torch.exp(x), what="d(exp x)/dx")


@check("grad")
def test_non_scalar_output(sub):
    # f returns a (2, 3) tensor: a bare y.backward() raises; the derivative needs gradient=ones.
    x = torch.randn(2, 3)
    assert_close(sub.elementwise_derivative(lambda t: t * t, x), 2 * x)


@check("state", weight=2)
@pytest.mark.parametrize("trainable", [False, True], ids=["plain", "leaf_with_grad"])
def test_input_left_untouched(sub, trainable):
    def observe(mod, x, trainable):
        if trainable:
            x.requires_grad_(True)
            x.grad = torch.full_like(x, 7.0)
        before, grad_before = x.detach().clone(), None if x.grad is None else x.grad.clone()
        out = mod.elementwise_derivative(torch.sin, x)
        grad_same = (x.grad is None) if grad_before is None else (
            x.grad is not None and bool(torch.equal(x.grad, grad_before)))
        return {"requires_grad": x.requires_grad, "grad_same": grad_same,
                "values_same": bool(torch.equal(before, x.detach())),
                "out_requires_grad": getattr(out, "requires_grad", None), "out": out}

    x = torch.randn(4)
    seen = sub.probe(observe, sub, x, trainable)
    # the answer itself first: a function that returns nothing leaves x untouched trivially
    assert isinstance(seen["out"], torch.Tensor), \
        f"elementwise_derivative returned {type(seen['out']).__name__}, not a tensor"
    assert_close(seen["out"].detach(), torch.cos(x), what="elementwise_derivative(torch.sin, x)")
    assert seen["requires_grad"] is trainable, (
        "x.requires_grad was switched on: work on a detached copy" if not trainable
        else "x.requires_grad was switched off (detach_ or requires_grad_(False) on the caller's tensor)")
    assert seen["grad_same"], "x.grad was changed: leave the caller's tensor alone"
    assert seen["values_same"], "x's values changed"
    assert seen["out_requires_grad"] is False, "the result still requires grad: detach it"


@check("value")
def test_no_accumulation_across_calls(sub):
    # both calls on the very same tensor, inside the worker (each remote call would get a fresh copy)
    def twice(mod, x):
        first = mod.elementwise_derivative(lambda t: t ** 2, x)
        first = first.clone() if isinstance(first, torch.Tensor) else first
        return first, mod.elementwise_derivative(lambda t: t ** 2, x)

    x = torch.randn(6)
    first, second = sub.probe(twice, sub, x)
    for name, got in (("first call", first), ("second call on the same tensor", second)):
        assert isinstance(got, torch.Tensor), f"{name} returned {type(got).__name__}, not a tensor"
        assert_close(got, 2 * x, what=f"d(x^2)/dx, {name}")


@check("grad", weight=2)
def test_accumulated_grad(sub):
    x = torch.randn(5, dtype=torch.float64)
    assert_close(sub.accumulated_grad(x, 3), 6 * x, what="grad after 3 backward calls")
    assert_close(sub.accumulated_grad(x, 1), 2 * x, what="grad after 1 backward call")
    # "a fresh leaf copy": a caller's x that itself requires grad must not change that
    trainable = torch.randn(5, dtype=torch.float64, requires_grad=True)
    assert_close(sub.accumulated_grad(trainable, 2), 4 * trainable.detach(),
                 what="grad after 2 backward calls, x requiring grad")

    def callers_x(mod):
        # in the candidate's process: the caller's own x, not a copy sent over
        x = torch.randn(5, dtype=torch.float64, requires_grad=True)
        mod.accumulated_grad(x, 2)
        return x.requires_grad, x.grad is None, x.is_leaf

    requires_grad, no_grad_field, leaf = sub.probe(callers_x, sub)
    assert requires_grad and no_grad_field and leaf, (
        "accumulated_grad changed the caller's x (its requires_grad or .grad): work on a fresh leaf copy, "
        "x.detach().clone(), never on x itself (x.detach_() changes the caller's tensor)")


@check("value", weight=2)
def test_descent_converges(sub):
    result = sub.gradient_descent_scalar(lambda t: (t - 3) ** 2, 0.0, 0.1, 200)
    assert isinstance(result, float), f"expected a Python float, got {type(result).__name__}"
    assert abs(result - 3.0) < 1e-4, f"expected the minimum at 3.0, got {result} (is .grad zeroed every step?)"


@check("dtype")
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["float32", "float64"])
def test_dtype_follows_input(sub, dtype):
    x = torch.randn(4, dtype=dtype)
    out = sub.elementwise_derivative(torch.sin, x)
    assert_dtype(out, dtype)
    assert_close(out, torch.cos(x), atol=1e-5, rtol=1e-4)
    grad = sub.accumulated_grad(x, 2)
    assert_dtype(grad, dtype, what="accumulated_grad")
    assert_close(grad, 4 * x, atol=1e-5, rtol=1e-4, what="accumulated_grad")


@requires_cuda
@check("device")
def test_cuda_in_cuda_out(sub):
    x = torch.randn(8, device="cuda")
    out = sub.elementwise_derivative(torch.sin, x)
    assert_device(out, "cuda")
    assert_close(out, torch.cos(x))
