"""Calls the built-in torch.logsumexp in forward (and keeps the reduced dim), which defeats the
exercise: the output shape is (.., 1, ..) instead of dropping dim.

Caught by: test_no_builtin_logsumexp, test_output_shape
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
        out = torch.logsumexp(x, dim=dim, keepdim=True)
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad_out):
        x, out = ctx.saved_tensors
        return grad_out * (x - out).exp(), None
