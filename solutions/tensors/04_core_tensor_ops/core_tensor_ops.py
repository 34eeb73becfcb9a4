"""Reference solution for 04_core_tensor_ops."""
from __future__ import annotations

import torch
from torch import Tensor


def batch_from_samples(samples: list[Tensor]) -> Tensor:
    """Stack K same-shape (C,H,W) samples into (K,C,H,W)."""
    return torch.stack(list(samples), dim=0)  # a new leading axis


def concat_batches(batches: list[Tensor]) -> Tensor:
    """Concatenate batches (B_i, *rest) into (sum B_i, *rest)."""
    return torch.cat(list(batches), dim=0)  # joins along the existing batch axis


def gram_matrix(x: Tensor) -> Tensor:
    """(B,N,D) -> (B,N,N) with out[b] = x[b] @ x[b].T."""
    return x @ x.transpose(-2, -1)  # batched matmul; `*` would be elementwise


def row_normalize(x: Tensor) -> Tensor:
    """(N,D) -> each row divided by its sum; rows summing to 0 stay all-zero (no NaN)."""
    sums = x.sum(dim=1, keepdim=True)  # (N, 1): one sum per row, broadcast over columns
    zero = sums == 0
    # Divide by 1 where the sum is 0 (no NaN, and no NaN gradient either), then zero those rows.
    # torch.where keeps it sync-free on CUDA: no data-dependent Python branch.
    return torch.where(zero, torch.zeros_like(x), x / torch.where(zero, torch.ones_like(sums), sums))
