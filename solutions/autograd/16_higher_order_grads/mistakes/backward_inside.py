"""Gets the input gradient with critic(x_hat).sum().backward(create_graph=True) and reads
x_hat.grad. The penalty is differentiable, but the inner backward also writes d critic/d theta
into every critic parameter's .grad, which then pollutes the critic's real update.

Caught by: test_leaves_grads_untouched, test_penalty_backprops_to_critic
"""
from __future__ import annotations

import torch


def gradient_penalty(critic, real, fake, alpha):
    x_hat = (alpha * real + (1 - alpha) * fake).detach().requires_grad_(True)
    critic(x_hat).sum().backward(create_graph=True)
    grad = x_hat.grad
    return ((grad.flatten(1).norm(dim=1) - 1) ** 2).mean()


def hessian_vector_product(f, x, v):
    x = x.detach().requires_grad_(True)
    (grad,) = torch.autograd.grad(f(x), x, create_graph=True)
    (hvp,) = torch.autograd.grad(grad, x, grad_outputs=v)
    return hvp
