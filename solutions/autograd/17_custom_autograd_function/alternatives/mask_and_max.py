"""A correct alternative: SignSTE saves only its mask; logsumexp via max().values, backward via softmax."""
from __future__ import annotations

from typing import Any

import torch
from torch import Tensor


class SignSTE(torch.autograd.Function):
    """forward: sign(x) in {-1,+1} (0 -> +1), same dtype; backward: grad_out * (|x| <= 1) (straight-through estimator)."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x.abs() <= 1)  # backward needs only where the gradient passes
        return torch.where(x < 0, -1.0, 1.0).to(x.dtype)

    @staticmethod
    def backward(ctx: Any, grad_out: Tensor) -> Tensor:
        (inside,) = ctx.saved_tensors
        return grad_out.masked_fill(~inside, 0)


class StableLogSumExp(torch.autograd.Function):
    """forward: numerically stable logsumexp of x over dim (dim removed); backward: grad_out.unsqueeze(dim) * softmax(x, dim)."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int) -> Tensor:
        m = x.max(dim=dim, keepdim=True).values
        ctx.save_for_backward(x)
        ctx.dim = dim
        return m.squeeze(dim) + torch.log(torch.exp(x - m).sum(dim=dim))

    @staticmethod
    def backward(ctx: Any, grad_out: Tensor) -> tuple[Tensor, None]:
        (x,) = ctx.saved_tensors
        return torch.softmax(x, dim=ctx.dim) * grad_out.unsqueeze(ctx.dim), None
