"""Zeroes entries equal to the threshold too (>= instead of >).

Caught by: test_zero_above_boundary
"""
from __future__ import annotations

import torch
from torch import Tensor


def pick_target_scores(logits: Tensor, targets: Tensor) -> Tensor:
    """logits (N,C), targets (N,) int64 -> (N,) with out[i] = logits[i, targets[i]]."""
    # gather wants an index with the same rank as logits: (N,1), then drop the singleton column.
    return logits.gather(1, targets.long().unsqueeze(1)).squeeze(1)


def zero_above(x: Tensor, threshold: float) -> Tensor:
    """New tensor equal to x with entries > threshold set to 0; x itself is not modified."""
    # Out of place and free of data-dependent shapes (no nonzero), so no host sync on CUDA.
    return x.masked_fill(x >= threshold, 0)


def last_channel(x: Tensor) -> Tensor:
    """x (..., C) -> (...) VIEW of the last channel (shares storage with x), any rank."""
    # An integer with an ellipsis is basic indexing: a strided view, whatever the rank.
    return x[..., -1]


def topk_mask(scores: Tensor, k: int) -> Tensor:
    """(N,C) -> bool (N,C), True at each row's k largest entries."""
    # topk returns exactly k indices per row even with ties; a `>= k-th value` threshold would not.
    idx = scores.topk(k, dim=1).indices
    mask = torch.zeros_like(scores, dtype=torch.bool)
    return mask.scatter(1, idx, True)
