"""Ports the (in, out) kernel with reshape(out, in) instead of a transpose: the shapes fit, the
values are scrambled (and for a square kernel nothing changes at all).

Caught by: test_ported_layer_values, test_parameters_trainable_contiguous, test_no_memory_shared
"""
from __future__ import annotations

import torch
from torch import nn


def manual_linear(x, weight, bias):
    out = x @ weight.T
    return out if bias is None else out + bias


def linear_from_in_out(kernel, bias):
    n_in, n_out = kernel.shape
    layer = nn.Linear(n_in, n_out)
    with torch.no_grad():
        layer.weight.copy_(torch.tensor(kernel, dtype=torch.float32).reshape(n_out, n_in))
        layer.bias.copy_(torch.tensor(bias, dtype=torch.float32))
    return layer
