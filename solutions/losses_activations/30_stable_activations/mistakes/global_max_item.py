"""Shifts by the tensor's global maximum, read back as a Python number with .item(): a host sync
on CUDA (and a failure on meta tensors), and a shift that is wrong for every slice whose own max
is far below the global one (its exponentials all underflow to 0, 0 / 0 = nan).

Caught by: test_meta_no_data_dependence, test_hostile_logits
"""
from __future__ import annotations

import torch


def softmax(x, dim):
    e = torch.exp(x - x.max().item())
    return e / e.sum(dim=dim, keepdim=True)


def log_softmax(x, dim):
    shifted = x - x.max().item()
    return shifted - shifted.exp().sum(dim=dim, keepdim=True).log()


def gelu_tanh(x):
    return 0.5 * x * (1.0 + torch.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))


def silu(x):
    return x * torch.sigmoid(x)


def leaky_relu(x, negative_slope=0.01):
    return torch.where(x >= 0, x, negative_slope * x)
