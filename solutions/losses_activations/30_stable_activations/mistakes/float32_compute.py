"""Computes everything in float32 "for stability" and forgets to cast back: bfloat16 and float16
inputs come back float32, and float64 inputs lose their precision.

Caught by: test_dtype_preserved, test_matches_torch
"""
from __future__ import annotations

import torch


def softmax(x, dim):
    x = x.float()
    e = torch.exp(x - x.amax(dim=dim, keepdim=True))
    return e / e.sum(dim=dim, keepdim=True)


def log_softmax(x, dim):
    x = x.float()
    shifted = x - x.amax(dim=dim, keepdim=True)
    return shifted - shifted.exp().sum(dim=dim, keepdim=True).log()


def gelu_tanh(x):
    x = x.float()
    return 0.5 * x * (1.0 + torch.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))


def silu(x):
    x = x.float()
    return x * torch.sigmoid(x)


def leaky_relu(x, negative_slope=0.01):
    x = x.float()
    return torch.where(x >= 0, x, negative_slope * x)
