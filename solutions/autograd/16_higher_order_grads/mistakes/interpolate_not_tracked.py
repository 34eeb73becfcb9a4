"""Never makes the interpolate require grad. It works while fake comes from a generator (fake
requires grad, so x_hat does too), but with plain real and fake tensors torch.autograd.grad
raises because x_hat is not part of any graph.

Caught by: test_plain_inputs_accepted
"""
from __future__ import annotations

import torch


def gradient_penalty(critic, real, fake, alpha):
    x_hat = alpha * real + (1 - alpha) * fake
    (grad,) = torch.autograd.grad(critic(x_hat).sum(), x_hat, create_graph=True)
    return ((grad.flatten(1).norm(dim=1) - 1) ** 2).mean()


def hessian_vector_product(f, x, v):
    x = x.detach().requires_grad_(True)
    (grad,) = torch.autograd.grad(f(x), x, create_graph=True)
    (hvp,) = torch.autograd.grad(grad, x, grad_outputs=v)
    return hvp
