from __future__ import annotations

import torch
from torch import Tensor


def add_feature_bias(x: Tensor, bias: Tensor) -> Tensor:
    """x (N,F) + bias (F,) broadcast over rows."""
    return x + bias


def add_sample_bias(x: Tensor, bias: Tensor) -> Tensor:
    """x (N,F) with bias[i] added to every element of row i; bias is (N,); correct even when N == F."""
    return x + bias[:, None]


def pairwise_sq_dists(a: Tensor, b: Tensor) -> Tensor:
    """(N,D),(M,D) -> (N,M) squared Euclidean distances via broadcasting, clamped at 0."""
    sq = a.pow(2).sum(-1)[:, None] + b.pow(2).sum(-1)[None, :] - 2 * a @ b.T
    return torch.clamp(sq, min=0)
