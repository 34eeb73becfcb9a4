"""Normalises over the last dimension whatever `dim` says (the usual case in a classifier's
(N, C) logits): softmax(x, 0) of a (3, 5) input does not sum to 1 down the columns.

Caught by: test_softmax_dims, test_hostile_logits
"""
from __future__ import annotations

import torch


def softmax(x, dim):
    e = torch.exp(x - x.amax(dim=-1, keepdim=True))
    return e / e.sum(dim=-1, keepdim=True)


def log_softmax(x, dim):
    shifted = x - x.amax(dim=-1, keepdim=True)
    return shifted - shifted.exp().sum(dim=-1, keepdim=True).log()


def gelu_tanh(x):
    return 0.5 * x * (1.0 + torch.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))


def silu(x):
    return x * torch.sigmoid(x)


def leaky_relu(x, negative_slope=0.01):
    return torch.where(x >= 0, x, negative_slope * x)
