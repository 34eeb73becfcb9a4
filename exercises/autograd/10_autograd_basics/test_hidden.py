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
def test_input_left_untouched(sub):
    def observe(mod, x):
        before = x.clone()
        out = mod.elementwise_derivative(torch.sin, x)
        return {"requires_grad": x.requires_grad, "grad_is_none": x.grad is None,
                "values_same": bool(torch.equal(before, x)), "out_requires_grad": out.requires_grad}

    seen = sub.probe(observe, sub, torch.randn(4))
    assert seen["requires_grad"] is False, "x.requires_grad was switched on: work on a detached copy"
    assert seen["grad_is_none"], "x.grad was set: leave the caller's tensor alone"
    assert seen["values_same"], "x's values changed"
    assert seen["out_requires_grad"] is False, "the result still requires grad: detach it"


@check("value")
def test_no_accumulation_across_calls(sub):
    x = torch.randn(6)
    first = sub.elementwise_derivative(lambda t: t ** 2, x)
    second = sub.elementwise_derivative(lambda t: t ** 2, x)
    assert_close(second, first, what="second call")


@check("grad", weight=2)
def test_accumulated_grad(sub):
    x = torch.randn(5, dtype=torch.float64)
    assert_close(sub.accumulated_grad(x, 3), 6 * x, what="grad after 3 backward calls")
    assert_close(sub.accumulated_grad(x, 1), 2 * x, what="grad after 1 backward call")


@check("value", weight=2)
def test_descent_converges(sub):
    result = sub.gradient_descent_scalar(lambda t: (t - 3) ** 2, 0.0, 0.1, 200)
    assert isinstance(result, float), f"expected a Python float, got {type(result).__name__}"
    assert abs(result - 3.0) < 1e-4, f"expected the minimum at 3.0, got {result} (is .grad zeroed every step?)"


@check("dtype")
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["float32", "float64"])
def test_dtype_follows_input(sub, dtype):
    x = torch.randn(4, dtype=dtype)
    assert_dtype(sub.elementwise_derivative(torch.sin, x), dtype)
    assert_dtype(sub.accumulated_grad(x, 2), dtype, what="accumulated_grad")


@requires_cuda
@check("device")
def test_cuda_in_cuda_out(sub):
    x = torch.randn(8, device="cuda")
    out = sub.elementwise_derivative(torch.sin, x)
    assert_device(out, "cuda")
    assert_close(out, torch.cos(x))
