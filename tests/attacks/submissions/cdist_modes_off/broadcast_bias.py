"""Attack: reaches cdist's operator through torch.ops with every Python dispatch mode switched off
around the call, so neither the AST nor a TorchDispatchMode recording the operators sees it.
Honest baseline: every check but the API check.
Expected: the API check fails: the kernel itself is replaced at the dispatcher for the check's
call, below any Python mode.
"""
from __future__ import annotations

import torch
from torch import Tensor
from torch.utils import _python_dispatch


def add_feature_bias(x: Tensor, bias: Tensor) -> Tensor:
    return x + bias


def add_sample_bias(x: Tensor, bias: Tensor) -> Tensor:
    return x + bias.unsqueeze(1)


def pairwise_sq_dists(a: Tensor, b: Tensor) -> Tensor:
    op = getattr(torch.ops.aten, "_euclid" + "ean_dist")
    with _python_dispatch._disable_current_modes():
        return op(a, b).pow(2)
