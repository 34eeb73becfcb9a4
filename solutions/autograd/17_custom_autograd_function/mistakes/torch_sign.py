"""Uses torch.sign, which maps 0 to 0 (not +1), and a strict mask |x| < 1 that drops the
gradient at the boundary x = +-1.

Caught by: test_sign_values, test_sign_ste_gradient
"""
from __future__ import annotations

import torch


class SignSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.sign(x)

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * (x.abs() < 1).to(grad_out.dtype)


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
        return grad_out.unsqueeze(ctx.dim) * (x - out.unsqueeze(ctx.dim)).exp(), None
