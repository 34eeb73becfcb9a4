"""A correct alternative: HVP as the gradient of (grad . v); penalty with torch.linalg.vector_norm."""
from __future__ import annotations

import torch


def gradient_penalty(critic, real, fake, alpha):
    x_hat = (alpha * real + (1 - alpha) * fake)
    if not x_hat.requires_grad:
        x_hat = x_hat.detach().requires_grad_(True)
    out = critic(x_hat)
    (grad,) = torch.autograd.grad(out, x_hat, grad_outputs=torch.ones_like(out), create_graph=True)
    norms = torch.linalg.vector_norm(grad.reshape(grad.shape[0], -1), dim=1)
    return (norms - 1).pow(2).mean()


def hessian_vector_product(f, x, v):
    with torch.enable_grad():
        x = x.detach().requires_grad_(True)
        (g,) = torch.autograd.grad(f(x), x, create_graph=True)
        (hv,) = torch.autograd.grad((g * v).sum(), x)
    return hv.detach()
