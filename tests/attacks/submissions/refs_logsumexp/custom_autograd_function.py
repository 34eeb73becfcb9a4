"""Attack: exercise 17 forbids the built-in logsumexp inside StableLogSumExp, at torch's dispatcher
(aten.logsumexp refused for the call). This is the reference with its forward replaced by torch's
own Python re-implementation, torch._refs.logsumexp (max, subtract, exp, sum, log: never the
aten.logsumexp kernel), reached through a name built at run time and kept in a list.
Honest baseline: every check but the API check (the values are torch's own).
Expected: the API check fails: the call watch sees torch._refs.logsumexp's code run.
"""
from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

_KEPT = [getattr(torch._refs, "log" + "sumexp")]  # torch's Python version, kept in a list


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
        out = _KEPT[0](x, dim)  # the forbidden function, computed from other operators
        ctx.save_for_backward(x, out)
        ctx.dim = dim  # a plain int may live on ctx
        return out

    @staticmethod
    def backward(ctx: Any, grad_out: Tensor) -> tuple[Tensor, None]:
        x, out = ctx.saved_tensors
        softmax = (x - out.unsqueeze(ctx.dim)).exp()
        return grad_out.unsqueeze(ctx.dim) * softmax, None  # None: dim is not a tensor
