"""Adds the per-sample bias with plain `x + bias`, which aligns shapes from the right.

For N == F it silently adds bias[j] to column j; for N != F it raises.

Caught by: test_sample_bias_square, test_sample_bias_rectangular
"""
from __future__ import annotations

import torch
from torch import Tensor


def add_feature_bias(x: Tensor, bias: Tensor) -> Tensor:
    return x + bias


def add_sample_bias(x: Tensor, bias: Tensor) -> Tensor:
    return x + bias


def pairwise_sq_dists(a: Tensor, b: Tensor) -> Tensor:
    a_sq = (a * a).sum(dim=1, keepdim=True)
    b_sq = (b * b).sum(dim=1).unsqueeze(0)
    return (a_sq + b_sq - 2.0 * a @ b.T).clamp_min(0.0)
