"""Takes the HVP without switching grad mode on: right wherever grad mode is already on, but
called under `torch.no_grad()` (inside an optimizer's step, for instance) `f(x)` has no graph and
the first `autograd.grad` raises.

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
    (grad,) = torch.autograd.grad(f(x), x, create_graph=True)
    (hvp,) = torch.autograd.grad(grad, x, grad_outputs=v)
    return hvp
