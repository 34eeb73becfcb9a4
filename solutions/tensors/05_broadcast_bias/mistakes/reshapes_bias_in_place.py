"""Turns the caller's bias into a column with the in-place `unsqueeze_`: the sum is right, but the
caller's (N,) bias is now (N, 1), and its next use breaks.

Caught by: test_inputs_untouched
"""
from __future__ import annotations

from torch import Tensor


def add_feature_bias(x: Tensor, bias: Tensor) -> Tensor:
    return x + bias


def add_sample_bias(x: Tensor, bias: Tensor) -> Tensor:
    return x + bias.unsqueeze_(1)


def pairwise_sq_dists(a: Tensor, b: Tensor) -> Tensor:
    a_sq = (a * a).sum(dim=1, keepdim=True)
    b_sq = (b * b).sum(dim=1).unsqueeze(0)
    return (a_sq + b_sq - 2.0 * a @ b.T).clamp_min(0.0)
