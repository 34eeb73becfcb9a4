"""Stashes the input tensors on ctx (ctx.x = x) instead of ctx.save_for_backward. Gradients are
right, but the tensors escape autograd's saved-tensor machinery: no check that they were modified
in place before backward, no saved-tensor hooks (offloading, checkpointing), and a reference
cycle that can keep the graph alive.

Caught by: test_saves_with_save_for_backward
"""
from __future__ import annotations

import torch


class SignSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.x = x
        return torch.where(x >= 0, torch.ones_like(x), -torch.ones_like(x))

    @staticmethod
    def backward(ctx, grad_out):
        return grad_out * (ctx.x.abs() <= 1).to(grad_out.dtype)


class StableLogSumExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim):
        m = x.amax(dim=dim, keepdim=True)
        out = (m + (x - m).exp().sum(dim=dim, keepdim=True).log()).squeeze(dim)
        ctx.saved = (x, out)
        ctx.dim = dim
        return out

    @staticmethod
    def backward(ctx, grad_out):
        x, out = ctx.saved
        return grad_out.unsqueeze(ctx.dim) * (x - out.unsqueeze(ctx.dim)).exp(), None
