"""Differentiates by flipping the caller's tensor to requires_grad and leaves .grad on it; the
result is not detached.

Caught by: test_input_left_untouched, test_no_accumulation_across_calls
"""
from __future__ import annotations

import torch


def elementwise_derivative(f, x):
    x.requires_grad_(True)
    y = f(x)
    y.backward(torch.ones_like(y))
    return x.grad


def accumulated_grad(x, n_backward):
    leaf = x.detach().clone().requires_grad_(True)
    for _ in range(n_backward):
        (leaf ** 2).sum().backward()
    return leaf.grad.detach()


def gradient_descent_scalar(f, x0, lr, steps):
    x = torch.tensor(float(x0), dtype=torch.float64, requires_grad=True)
    for _ in range(steps):
        f(x).backward()
        with torch.no_grad():
            x -= lr * x.grad
        x.grad.zero_()
    return float(x.item())
