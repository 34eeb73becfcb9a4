"""Saves an allocation in StableLogSumExp's backward by reshaping and scaling `grad_out` in place
(`grad_out.unsqueeze_(dim).mul_(softmax)`): the gradient is right, but `grad_out` can be the
caller's own tensor, which comes back with another shape and other values.

Caught by: test_backward_leaves_grad_output_alone
"""
from __future__ import annotations

from typing import Any

import torch
from torch import Tensor


class SignSTE(torch.autograd.Function):
    """forward: sign(x) in {-1,+1} (0 -> +1), same dtype; backward: grad_out * (|x| <= 1) (straight-through estimator)."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)  # not ctx.x = x: saved tensors are version-checked and hookable
        return torch.where(x >= 0, torch.ones_like(x), -torch.ones_like(x))

    @staticmethod
    def backward(ctx: Any, grad_out: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return grad_out * (x.abs() <= 1).to(grad_out.dtype)


class StableLogSumExp(torch.autograd.Function):
    """forward: numerically stable logsumexp of x over dim (dim removed); backward: grad_out.unsqueeze(dim) * softmax(x, dim)."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int) -> Tensor:
        m = x.amax(dim=dim, keepdim=True)
        m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))  # all -inf (or inf) rows: no inf - inf
        out = (m + (x - m).exp().sum(dim=dim, keepdim=True).log()).squeeze(dim)
        ctx.save_for_backward(x, out)
        ctx.dim = dim  # a plain int may live on ctx
        return out

    @staticmethod
    def backward(ctx: Any, grad_out: Tensor) -> tuple[Tensor, None]:
        x, out = ctx.saved_tensors
        softmax = (x - out.unsqueeze(ctx.dim)).exp()
        return grad_out.unsqueeze_(ctx.dim).mul_(softmax), None
