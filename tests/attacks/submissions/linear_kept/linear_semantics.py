"""Attack: exercise 21 forbids F.linear / addmm inside manual_linear. This is the reference with
manual_linear handed to F.linear (torch._C._nn.linear), reached through a reference taken at
import under a name built at run time and kept in a list: no line of manual_linear names it for
the AST, and a wrapper put on F.linear during the check never sees the call.
Honest baseline: every check but the API check (the values are torch's own).
Expected: the API check fails: aten.linear is reached at torch's dispatcher.
"""
from __future__ import annotations

import numpy as np
import torch
from torch import Tensor, nn

_KEPT = [getattr(torch._C._nn, "lin" + "ear")]  # F.linear itself, taken at import, kept in a list


def manual_linear(x: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
    """x (..., in), weight (out, in), bias (out,) or None -> x @ weight.T + bias, without nn.Linear/F.linear."""
    return _KEPT[0](x, weight, bias)  # the forbidden built-in, through a reference no wrapper replaces


def linear_from_in_out(kernel: np.ndarray, bias: np.ndarray) -> nn.Linear:
    """nn.Linear (float32) such that layer(x) == x @ kernel + bias for a kernel stored as (in, out)."""
    layer = nn.Linear(kernel.shape[0], kernel.shape[1])
    with torch.no_grad():
        layer.weight.copy_(torch.from_numpy(kernel).T)
        layer.bias.copy_(torch.from_numpy(bias))
    return layer
