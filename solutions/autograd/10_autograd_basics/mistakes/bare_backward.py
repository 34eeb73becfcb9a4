"""Calls a bare `y.backward()`, which only works when f returns a scalar; it also returns the
gradient in float32 whatever the input dtype.

Caught by: test_non_scalar_output, test_dtype_follows_input
"""
from __future__ import annotations

import torch


def elementwise_derivative(f, x):
    leaf = x.detach().clone().float().requires_grad_(True)
    y = f(leaf)
    y.backward()
    return leaf.grad.detach()


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
