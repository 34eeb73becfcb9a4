"""Reference solution for 05_broadcast_bias."""
from __future__ import annotations

import torch
from torch import Tensor


def add_feature_bias(x: Tensor, bias: Tensor) -> Tensor:
    """x (N,F) + bias (F,) broadcast over rows."""
    return x + bias


def add_sample_bias(x: Tensor, bias: Tensor) -> Tensor:
    """x (N,F) with bias[i] added to every element of row i; bias is (N,); correct even when N == F."""
    return x + bias.unsqueeze(1)


def pairwise_sq_dists(a: Tensor, b: Tensor) -> Tensor:
    """(N,D),(M,D) -> (N,M) squared Euclidean distances via broadcasting, using O(N*M) extra memory (not O(N*M*D)), clamped at 0."""
    a_sq = (a * a).sum(dim=1, keepdim=True)  # (N, 1)
    b_sq = (b * b).sum(dim=1).unsqueeze(0)  # (1, M)
    return (a_sq + b_sq - 2.0 * a @ b.T).clamp_min(0.0)
