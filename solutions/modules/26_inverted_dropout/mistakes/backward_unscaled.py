"""A hand-written autograd.Function whose backward multiplies by the mask but forgets the
1/(1 - p) factor that the forward applied.

Caught by: test_grad_uses_forward_mask
"""
from __future__ import annotations

import torch
from torch import Tensor, nn


class _Drop(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, keep, scale):
        ctx.save_for_backward(keep)
        return x * keep * scale

    @staticmethod
    def backward(ctx, grad):
        (keep,) = ctx.saved_tensors
        return grad * keep, None, None


class InvertedDropout(nn.Module):
    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability must be in [0, 1], got {p}")
        self.p = p

    def forward(self, x: Tensor) -> Tensor:
        if not self.training or self.p == 0.0:
            return x
        if self.p == 1.0:
            return torch.zeros_like(x)
        keep = (torch.rand_like(x) >= self.p).to(x.dtype)
        return _Drop.apply(x, keep, 1.0 / (1.0 - self.p))
