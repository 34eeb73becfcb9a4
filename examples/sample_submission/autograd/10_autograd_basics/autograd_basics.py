from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor


def elementwise_derivative(f: Callable[[Tensor], Tensor], x: Tensor) -> Tensor:
    """df/dx at every element of x for an elementwise f, via autograd."""
    x = x.detach().clone().requires_grad_()
    y = f(x)
    y.backward(torch.ones_like(y))
    return x.grad.detach()


def accumulated_grad(x: Tensor, n_backward: int) -> Tensor:
    """Backward of (x**2).sum() n_backward times on a fresh leaf copy, without zeroing."""
    x = x.detach().clone().requires_grad_()
    for _ in range(n_backward):
        (x**2).sum().backward()
    return x.grad


def gradient_descent_scalar(f: Callable[[Tensor], Tensor], x0: float, lr: float, steps: int) -> float:
    """Minimise scalar f by manual gradient descent."""
    x = torch.tensor(x0, requires_grad=True)
    for _ in range(steps):
        loss = f(x)
        loss.backward()
        with torch.no_grad():
            x -= lr * x.grad
        # forgot: x.grad.zero_()
    return x.item()
