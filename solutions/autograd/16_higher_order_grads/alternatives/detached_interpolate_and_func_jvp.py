"""A correct alternative: the WGAN-GP paper's detached interpolate; HVP as forward-over-reverse with torch.func."""
from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor, nn


def gradient_penalty(critic: nn.Module, real: Tensor, fake: Tensor, alpha: Tensor) -> Tensor:
    """WGAN-GP: x_hat = alpha*real + (1-alpha)*fake; return mean((||d critic(x_hat).sum() / d x_hat||_2 per sample - 1)**2), differentiable w.r.t. critic params."""
    # the penalty only trains the critic, so the interpolate may be a fresh leaf cut off from the generator
    x_hat = (alpha * real.detach() + (1 - alpha) * fake.detach()).requires_grad_(True)
    scores = critic(x_hat)
    grads = torch.autograd.grad(outputs=scores, inputs=x_hat, grad_outputs=torch.ones_like(scores),
                                create_graph=True)[0]
    per_sample = grads.pow(2).sum(dim=tuple(range(1, grads.dim()))).sqrt()
    return torch.mean((per_sample - 1) ** 2)


def hessian_vector_product(f: Callable[[Tensor], Tensor], x: Tensor, v: Tensor) -> Tensor:
    """H_f(x) @ v for scalar f via double backward (Pearlmutter), never forming H."""
    # forward-mode derivative of the gradient in direction v: H v without H
    _, hvp = torch.func.jvp(torch.func.grad(f), (x.detach(),), (v,))
    return hvp
