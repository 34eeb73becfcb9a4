"""Passes `create_graph=True` to the second backward too: the HVP's values are right, but the
result carries a graph (requires grad), keeps the whole double-backward graph alive, and an
optimizer that adds it to a parameter records history.

Caught by: test_hvp_plain_result_inputs_untouched
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
    x = x.detach().requires_grad_(True)
    with torch.enable_grad():
        (grad,) = torch.autograd.grad(f(x), x, create_graph=True)
        (hvp,) = torch.autograd.grad(grad, x, grad_outputs=v, create_graph=True)
    return hvp
