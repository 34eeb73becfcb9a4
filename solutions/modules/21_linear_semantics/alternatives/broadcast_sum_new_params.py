"""A broadcast multiply-and-sum for the product; new nn.Parameters built from copies."""
from __future__ import annotations

import torch
from torch import nn


def manual_linear(x, weight, bias=None):
    out = (x.unsqueeze(-2) * weight).sum(dim=-1)
    if bias is not None:
        out += bias
    return out


def linear_from_in_out(kernel, bias):
    layer = nn.Linear(*kernel.shape)
    w = torch.as_tensor(kernel.copy(), dtype=torch.float32).t().contiguous()
    layer.weight = nn.Parameter(w)
    layer.bias = nn.Parameter(torch.as_tensor(bias.copy()).float())
    return layer
