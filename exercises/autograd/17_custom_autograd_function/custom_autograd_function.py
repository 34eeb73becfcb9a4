from __future__ import annotations

from typing import Any

import torch
from torch import Tensor


class SignSTE(torch.autograd.Function):
    """Sign of x as -1 or +1 (0 gives +1) in x's dtype. Its gradient is a straight-through estimator clipped to |x| <= 1."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        """Return the binarised x."""
        raise NotImplementedError

    @staticmethod
    def backward(ctx: Any, grad_out: Tensor) -> Tensor:
        """Return the surrogate gradient with respect to x."""
        raise NotImplementedError


class StableLogSumExp(torch.autograd.Function):
    """Log-sum-exp of x over dim, with dim removed, that stays finite for large inputs."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int) -> Tensor:
        """Return the log-sum-exp of x over dim."""
        raise NotImplementedError

    @staticmethod
    def backward(ctx: Any, grad_out: Tensor) -> tuple[Tensor, None]:
        """Return one gradient for each input of forward."""
        raise NotImplementedError
