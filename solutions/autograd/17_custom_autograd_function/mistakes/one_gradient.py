"""backward returns only the input's gradient, not one entry per forward argument: forward took
(x, dim), so backward must return (grad_x, None). Autograd rejects the call with "returned an
incorrect number of gradients".

Caught by: test_logsumexp_gradcheck
"""
from __future__ import annotations

import torch


class SignSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.where(x >= 0, torch.ones_like(x), -torch.ones_like(x))

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * (x.abs() <= 1).to(grad_out.dtype)


class StableLogSumExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim):
        m = x.amax(dim=dim, keepdim=True)
        out = (m + (x - m).exp().sum(dim=dim, keepdim=True).log()).squeeze(dim)
        ctx.save_for_backward(x, out)
        ctx.dim = dim
        return out

    @staticmethod
    def backward(ctx, grad_out):
        x, out = ctx.saved_tensors
        return grad_out.unsqueeze(ctx.dim) * (x - out.unsqueeze(ctx.dim)).exp()
