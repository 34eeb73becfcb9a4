"""Reference solution for 16_higher_order_grads."""
from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor, nn


def gradient_penalty(critic: nn.Module, real: Tensor, fake: Tensor, alpha: Tensor) -> Tensor:
    """WGAN-GP: x_hat = alpha*real + (1-alpha)*fake; return mean((||d critic(x_hat).sum() / d x_hat||_2 per sample - 1)**2), differentiable w.r.t. critic params."""
    x_hat = alpha * real + (1 - alpha) * fake
    if not x_hat.requires_grad:  # plain real/fake: make the interpolate a leaf we can differentiate by
        x_hat.requires_grad_(True)
    scores = critic(x_hat)
    # autograd.grad leaves every .grad alone; create_graph keeps the gradient differentiable, so the
    # penalty can be back-propagated into the critic's parameters.
    (grad,) = torch.autograd.grad(scores.sum(), x_hat, create_graph=True)
    norms = grad.flatten(start_dim=1).norm(2, dim=1)
    return ((norms - 1) ** 2).mean()


def hessian_vector_product(f: Callable[[Tensor], Tensor], x: Tensor, v: Tensor) -> Tensor:
    """H_f(x) @ v for scalar f via double backward (Pearlmutter), never forming H."""
    x = x.detach().requires_grad_(True)
    with torch.enable_grad():
        (grad,) = torch.autograd.grad(f(x), x, create_graph=True)
        (hvp,) = torch.autograd.grad(grad, x, grad_outputs=v)
    return hvp
