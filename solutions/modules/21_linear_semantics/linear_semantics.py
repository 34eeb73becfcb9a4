from __future__ import annotations

import numpy as np
import torch
from torch import Tensor, nn


def manual_linear(x: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
    """x (..., in), weight (out, in), bias (out,) or None -> x @ weight.T + bias, without nn.Linear/F.linear."""
    out = x @ weight.T
    if bias is not None:
        out = out + bias
    return out


def linear_from_in_out(kernel: np.ndarray, bias: np.ndarray) -> nn.Linear:
    """nn.Linear (float32) such that layer(x) == x @ kernel + bias for a kernel stored as (in, out)."""
    layer = nn.Linear(kernel.shape[0], kernel.shape[1])
    with torch.no_grad():
        layer.weight.copy_(torch.from_numpy(kernel).T)
        layer.bias.copy_(torch.from_numpy(bias))
    return layer
