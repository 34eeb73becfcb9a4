"""A correct alternative: sign from a comparison, gradient through where; logsumexp saves softmax for backward."""
from __future__ import annotations

from typing import Any

import torch
from torch import Tensor


class SignSTE(torch.autograd.Function):
    """forward: sign(x) in {-1,+1} (0 -> +1), same dtype; backward: grad_out * (|x| <= 1) (straight-through estimator)."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return (x >= 0).to(x.dtype) * 2 - 1

    @staticmethod
    def backward(ctx: Any, grad_out: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return torch.where(x.abs() <= 1, grad_out, torch.zeros_like(grad_out))


class StableLogSumExp(torch.autograd.Function):
    """forward: numerically stable logsumexp of x over dim (dim removed); backward: grad_out.unsqueeze(dim) * softmax(x, dim)."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int) -> Tensor:
        dim = dim % x.dim()
        shift = x.amax(dim, keepdim=True)
        shifted = x - shift
        log_norm = shifted.exp().sum(dim, keepdim=True).log()
        ctx.save_for_backward((shifted - log_norm).exp())  # the softmax itself: all backward needs
        ctx.dim = dim
        return (shift + log_norm).squeeze(dim)

    @staticmethod
    def backward(ctx: Any, grad_out: Tensor) -> tuple[Tensor, None]:
        (probs,) = ctx.saved_tensors
        return grad_out.unsqueeze(ctx.dim) * probs, None
