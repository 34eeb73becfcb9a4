from __future__ import annotations

from torch import Tensor


def batch_from_samples(samples: list[Tensor]) -> Tensor:
    """Return one (K, C, H, W) batch made of K samples of equal shape (C, H, W), in order."""
    raise NotImplementedError


def concat_batches(batches: list[Tensor]) -> Tensor:
    """Return one batch holding the rows of batches of shapes (B_i, *rest), in order."""
    raise NotImplementedError


def gram_matrix(x: Tensor) -> Tensor:
    """Return the (B, N, N) Gram matrices of a (B, N, D) batch: out[b, i, j] is the dot product of rows i and j of x[b]."""
    raise NotImplementedError


def row_normalize(x: Tensor) -> Tensor:
    """Return the (N, D) matrix x with every row divided by its own sum. All-zero rows come back as zeros."""
    raise NotImplementedError
