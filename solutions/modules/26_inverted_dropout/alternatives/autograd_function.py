"""An autograd.Function that saves the scaled mask for the backward pass; the mask is drawn with
torch.rand(..., device=x.device, dtype=x.dtype) and applied with masked_fill."""
from __future__ import annotations

import torch
from torch import nn


class _MaskedScale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, drop, scale):
        ctx.save_for_backward(drop)
        ctx.scale = scale
        return x.masked_fill(drop, 0) * scale

    @staticmethod
    def backward(ctx, grad_out):
        (drop,) = ctx.saved_tensors
        return grad_out.masked_fill(drop, 0) * ctx.scale, None, None


class InvertedDropout(nn.Module):
    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        if not (0 <= p <= 1):
            raise ValueError(f"p={p} is not a probability")
        self.p = p

    def forward(self, x):
        if self.training and self.p > 0:
            if self.p == 1:
                return x.new_zeros(x.shape)
            drop = torch.rand(x.shape, device=x.device, dtype=x.dtype) < self.p
            return _MaskedScale.apply(x, drop, 1.0 / (1.0 - self.p))
        return x
