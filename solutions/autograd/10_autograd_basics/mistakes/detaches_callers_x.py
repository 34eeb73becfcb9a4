"""Cuts the copy from x's graph with `x.detach_()`, the in-place detach: the returned gradient is
right, but the caller's own x no longer requires grad afterwards.

Caught by: test_accumulated_grad
"""
from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor


def elementwise_derivative(f: Callable[[Tensor], Tensor], x: Tensor) -> Tensor:
    """df/dx at every element of x for an elementwise f, via autograd; x (its values, requires_grad flag, .grad) is left untouched; result is detached."""
    leaf = x.detach().clone().requires_grad_(True)
    y = f(leaf)
    (grad,) = torch.autograd.grad(y, leaf, grad_outputs=torch.ones_like(y))
    return grad.detach()


def accumulated_grad(x: Tensor, n_backward: int) -> Tensor:
    """On a fresh leaf copy of x, call backward of (x**2).sum() n_backward times (rebuilding the graph each time) without zeroing; return the .grad."""
    leaf = x.detach_().clone().requires_grad_(True)
    for _ in range(n_backward):
        (leaf ** 2).sum().backward()
    return leaf.grad.detach()


def gradient_descent_scalar(f: Callable[[Tensor], Tensor], x0: float, lr: float, steps: int) -> float:
    """Minimise scalar f by manual gradient descent using .backward(), updating under torch.no_grad() and zeroing .grad every step."""
    x = torch.tensor(float(x0), dtype=torch.float64, requires_grad=True)
    for _ in range(steps):
        f(x).backward()
        with torch.no_grad():
            x -= lr * x.grad
        x.grad.zero_()
    return float(x.item())
