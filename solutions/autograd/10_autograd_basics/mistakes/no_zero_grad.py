"""Never zeroes .grad in the descent loop, so gradients accumulate and the iterate overshoots.

It also calls backward with `gradient=` ones but on the caller's own tensor flags... no: the
derivative part is correct, only the descent is wrong.

Caught by: test_descent_converges
"""
from __future__ import annotations

import torch


def elementwise_derivative(f, x):
    leaf = x.detach().clone().requires_grad_(True)
    y = f(leaf)
    y.backward(torch.ones_like(y))
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
    return float(x.item())
