"""Public checks for 10_autograd_basics: run them with `grader check 10`."""
import torch

from grader.testing import assert_close, check


@check("value")
def test_derivative_of_square(sub):
    x = torch.tensor([1.0, 2.0, 3.0])
    assert_close(sub.elementwise_derivative(lambda t: t ** 2, x), torch.tensor([2.0, 4.0, 6.0]))


@check("grad")
def test_accumulated_twice(sub):
    x = torch.tensor([1.0, -2.0])
    assert_close(sub.accumulated_grad(x, 2), torch.tensor([4.0, -8.0]))


@check("value")
def test_descent_example(sub):
    result = sub.gradient_descent_scalar(lambda t: (t - 1.0) ** 2, 0.0, 0.1, 100)
    assert abs(result - 1.0) < 1e-3, f"expected about 1.0, got {result}"
