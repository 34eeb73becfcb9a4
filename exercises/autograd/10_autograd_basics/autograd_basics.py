from __future__ import annotations

from collections.abc import Callable

from torch import Tensor


def elementwise_derivative(f: Callable[[Tensor], Tensor], x: Tensor) -> Tensor:
    """Return the derivative of the elementwise function f at every element of x."""
    raise NotImplementedError


def accumulated_grad(x: Tensor, n_backward: int) -> Tensor:
    """Return the gradient a trainable copy of x holds after n_backward backward passes of (copy ** 2).sum(), never reset."""
    raise NotImplementedError


def gradient_descent_scalar(f: Callable[[Tensor], Tensor], x0: float, lr: float, steps: int) -> float:
    """Return the point reached by steps steps of plain gradient descent on f from x0, as a Python float."""
    raise NotImplementedError
