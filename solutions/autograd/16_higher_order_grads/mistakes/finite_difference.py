"""Approximates H v by a central finite difference of two first-order gradients,
(grad f(x + eps v) - grad f(x - eps v)) / (2 eps): exact on polynomials of degree <= 3, only
approximate elsewhere, and it evaluates f twice instead of double backward through one evaluation.

Caught by: test_hvp_is_exact_double_backward
"""
from __future__ import annotations

import torch


def gradient_penalty(critic, real, fake, alpha):
    x_hat = alpha * real + (1 - alpha) * fake
    if not x_hat.requires_grad:
        x_hat.requires_grad_(True)
    (grad,) = torch.autograd.grad(critic(x_hat).sum(), x_hat, create_graph=True)
    return ((grad.flatten(1).norm(dim=1) - 1) ** 2).mean()


def hessian_vector_product(f, x, v):
    eps = 1e-5 * max(1.0, float(x.detach().abs().max())) / max(1e-12, float(v.detach().abs().max()))

    def grad_at(point):
        point = point.detach().requires_grad_(True)
        with torch.enable_grad():
            (g,) = torch.autograd.grad(f(point), point)
        return g

    return (grad_at(x + eps * v) - grad_at(x - eps * v)) / (2 * eps)
