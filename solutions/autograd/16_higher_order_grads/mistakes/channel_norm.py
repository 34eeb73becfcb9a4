"""Takes the gradient norm over dim=1 only, as in the flat-vector WGAN-GP recipe. For images
(N, C, H, W) that is a norm over channels per pixel, not one norm per sample over C*H*W.

Caught by: test_per_sample_norm, test_penalty_matches_reference
"""
from __future__ import annotations

import torch


def gradient_penalty(critic, real, fake, alpha):
    x_hat = alpha * real + (1 - alpha) * fake
    if not x_hat.requires_grad:
        x_hat.requires_grad_(True)
    (grad,) = torch.autograd.grad(critic(x_hat).sum(), x_hat, create_graph=True)
    return ((grad.norm(2, dim=1) - 1) ** 2).mean()


def hessian_vector_product(f, x, v):
    x = x.detach().requires_grad_(True)
    (grad,) = torch.autograd.grad(f(x), x, create_graph=True)
    (hvp,) = torch.autograd.grad(grad, x, grad_outputs=v)
    return hvp
