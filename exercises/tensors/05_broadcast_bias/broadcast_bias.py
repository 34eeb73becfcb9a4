from __future__ import annotations

from torch import Tensor


def add_feature_bias(x: Tensor, bias: Tensor) -> Tensor:
    """Return x of shape (N, F) with bias of shape (F,) added to every row."""
    raise NotImplementedError


def add_sample_bias(x: Tensor, bias: Tensor) -> Tensor:
    """Return x of shape (N, F) with bias[i] added to every element of row i, for a bias of shape (N,)."""
    raise NotImplementedError


def pairwise_sq_dists(a: Tensor, b: Tensor) -> Tensor:
    """Return the (N, M) squared Euclidean distances between the rows of a (N, D) and of b (M, D). It needs O(N*M) extra memory, never O(N*M*D)."""
    raise NotImplementedError
