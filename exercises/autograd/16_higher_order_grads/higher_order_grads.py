from __future__ import annotations

from collections.abc import Callable

from torch import Tensor, nn


def gradient_penalty(critic: nn.Module, real: Tensor, fake: Tensor, alpha: Tensor) -> Tensor:
    """Return the WGAN-GP penalty, the mean over samples of (the 2-norm of the critic's input gradient at alpha * real + (1 - alpha) * fake, minus 1) squared, as a 0-dim tensor. The penalty can be back-propagated into the critic's parameters."""
    raise NotImplementedError


def hessian_vector_product(f: Callable[[Tensor], Tensor], x: Tensor, v: Tensor) -> Tensor:
    """Return the product of the Hessian of the scalar function f at x with v, shaped like x, without forming the Hessian."""
    raise NotImplementedError
