"""LeakyReLU as max(x, slope * x): right for slopes up to 1, but for a slope above 1 it returns
slope * x for positive x and x for negative x.

Caught by: test_matches_torch
"""
from __future__ import annotations

import torch


def softmax(x, dim):
    e = torch.exp(x - x.amax(dim=dim, keepdim=True))
    return e / e.sum(dim=dim, keepdim=True)


def log_softmax(x, dim):
    shifted = x - x.amax(dim=dim, keepdim=True)
    return shifted - shifted.exp().sum(dim=dim, keepdim=True).log()


def gelu_tanh(x):
    return 0.5 * x * (1.0 + torch.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))


def silu(x):
    return x * torch.sigmoid(x)


def leaky_relu(x, negative_slope=0.01):
    return torch.maximum(x, negative_slope * x)
