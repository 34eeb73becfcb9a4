"""Takes the first gradient without create_graph=True, so it is a constant and the second
torch.autograd.grad call raises: the gradient has no graph to differentiate through.

Caught by: test_hvp_closed_forms, test_hvp_large_input_fast
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
    (grad,) = torch.autograd.grad(f(x), x)
    (hvp,) = torch.autograd.grad(grad, x, grad_outputs=v)
    return hvp
