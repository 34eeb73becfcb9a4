"""Calls `x.requires_grad_(True)` on the caller's own tensor instead of on a detached copy: the
HVP is right, but a plain `x` comes back requiring grad (and a leaf that already did collects
nothing, a non-leaf is differentiated in its graph): the call changes its input.

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
    with torch.enable_grad():
        if not x.requires_grad:
            x.requires_grad_(True)
        (grad,) = torch.autograd.grad(f(x), x, create_graph=True)
        (hvp,) = torch.autograd.grad(grad, x, grad_outputs=v)
    return hvp
