"""The exact (erf) GELU instead of the tanh approximation (differs by up to ~5e-4), and SiLU as
x / (1 + exp(-x)): right in value, but at x = -1000 the backward pass multiplies 0 by
exp(1000) = inf and the gradient is nan.

Caught by: test_matches_torch, test_grads_finite_at_extremes
"""
from __future__ import annotations

import math

import torch


def softmax(x, dim):
    e = torch.exp(x - x.amax(dim=dim, keepdim=True))
    return e / e.sum(dim=dim, keepdim=True)


def log_softmax(x, dim):
    shifted = x - x.amax(dim=dim, keepdim=True)
    return shifted - shifted.exp().sum(dim=dim, keepdim=True).log()


def gelu_tanh(x):
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


def silu(x):
    return x / (1.0 + torch.exp(-x))


def leaky_relu(x, negative_slope=0.01):
    return torch.where(x >= 0, x, negative_slope * x)
