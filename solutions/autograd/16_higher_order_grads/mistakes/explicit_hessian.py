"""Builds the full Hessian with torch.autograd.functional.hessian and multiplies it by v. Right
on small inputs, but it is O(n^2) memory and n backward passes: hopeless at n = 10^6, and the
point of Pearlmutter's trick is never to form H.

Caught by: test_no_explicit_hessian, test_hvp_large_input_fast
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
    h = torch.autograd.functional.hessian(f, x)
    return (h.reshape(x.numel(), x.numel()) @ v.reshape(-1)).reshape(x.shape)
