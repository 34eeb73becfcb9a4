"""A correct alternative: the derivative of sum(f(x)) (elementwise f), grads set to None each step."""
from __future__ import annotations

import torch


def elementwise_derivative(f, x):
    with torch.enable_grad():
        leaf = x.detach().requires_grad_()
        (g,) = torch.autograd.grad(f(leaf).sum(), [leaf])
    return g


def accumulated_grad(x, n_backward):
    leaf = x.detach().clone().requires_grad_(True)
    for _ in range(n_backward):
        leaf.pow(2).sum().backward()
    return leaf.grad.detach()


def gradient_descent_scalar(f, x0, lr, steps):
    x = torch.tensor(float(x0), dtype=torch.float64, requires_grad=True)
    for _ in range(steps):
        f(x).backward()
        with torch.no_grad():
            x -= lr * x.grad
        x.grad = None
    return float(x)
