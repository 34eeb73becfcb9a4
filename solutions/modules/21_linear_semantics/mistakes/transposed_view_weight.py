"""Stores the transposed kernel as the weight without making it contiguous: a (out, in) view of
an (in, out) buffer, non-contiguous.

Caught by: test_parameters_trainable_contiguous
"""
from __future__ import annotations

import torch
from torch import nn


def manual_linear(x, weight, bias):
    out = x @ weight.T
    return out if bias is None else out + bias


def linear_from_in_out(kernel, bias):
    layer = nn.Linear(kernel.shape[0], kernel.shape[1])
    layer.weight = nn.Parameter(torch.tensor(kernel, dtype=torch.float32).T)
    layer.bias = nn.Parameter(torch.tensor(bias, dtype=torch.float32))
    return layer
