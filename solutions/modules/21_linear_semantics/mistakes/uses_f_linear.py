"""Calls F.linear inside manual_linear (imported under another name), which the task forbids.

Caught by: test_manual_linear_forbidden
"""
from __future__ import annotations

import torch
from torch import nn
from torch.nn.functional import linear as affine


def manual_linear(x, weight, bias):
    return affine(x, weight, bias)


def linear_from_in_out(kernel, bias):
    layer = nn.Linear(kernel.shape[0], kernel.shape[1])
    with torch.no_grad():
        layer.weight.copy_(torch.from_numpy(kernel).T)
        layer.bias.copy_(torch.from_numpy(bias))
    return layer
