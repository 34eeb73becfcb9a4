"""Takes the input gradient with torch.autograd.grad but without create_graph=True. The penalty's
value is right, but it is a constant as far as autograd is concerned: penalty.backward() raises
(or, added to the critic loss, silently contributes nothing to the critic's update).

Caught by: test_penalty_backprops_to_critic
"""
from __future__ import annotations

import torch


def gradient_penalty(critic, real, fake, alpha):
    x_hat = alpha * real + (1 - alpha) * fake
    if not x_hat.requires_grad:
        x_hat.requires_grad_(True)
    (grad,) = torch.autograd.grad(critic(x_hat).sum(), x_hat)
    return ((grad.flatten(1).norm(dim=1) - 1) ** 2).mean()


def hessian_vector_product(f, x, v):
    x = x.detach().requires_grad_(True)
    (grad,) = torch.autograd.grad(f(x), x, create_graph=True)
    (hvp,) = torch.autograd.grad(grad, x, grad_outputs=v)
    return hvp
