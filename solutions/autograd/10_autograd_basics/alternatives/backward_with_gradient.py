"""A correct alternative: y.backward(gradient=ones) on a detached leaf, manual update via .data-free no_grad."""
from __future__ import annotations

import torch


def elementwise_derivative(f, x):
    leaf = x.detach().clone()
    leaf.requires_grad = True
    y = f(leaf)
    y.backward(gradient=torch.ones_like(y))
    return leaf.grad.detach()


def accumulated_grad(x, n_backward):
    leaf = torch.tensor(x.detach().cpu().numpy(), dtype=x.dtype, device=x.device, requires_grad=True)
    for _ in range(n_backward):
        loss = (leaf * leaf).sum()
        loss.backward()
    return leaf.grad.clone()


def gradient_descent_scalar(f, x0, lr, steps):
    x = torch.tensor([float(x0)], dtype=torch.float64, requires_grad=True)
    for _ in range(steps):
        if x.grad is not None:
            x.grad.zero_()
        f(x[0]).backward()
        with torch.no_grad():
            x.sub_(lr * x.grad)
    return x.item()
