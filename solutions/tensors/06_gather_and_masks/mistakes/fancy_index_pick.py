"""Picks the target scores with `logits[:, targets]`.

Indexing one dimension with a tensor and slicing the other does not pair row i with targets[i]:
it takes the columns `targets` from every row, an (N, N) matrix whose diagonal is the answer.

Caught by: test_pick_target_scores_shape, test_pick_matches_loop
"""
from __future__ import annotations

import torch
from torch import Tensor


def pick_target_scores(logits: Tensor, targets: Tensor) -> Tensor:
    return logits[:, targets]


def zero_above(x: Tensor, threshold: float) -> Tensor:
    return torch.where(x > threshold, torch.zeros_like(x), x)


def last_channel(x: Tensor) -> Tensor:
    return x[..., -1]


def topk_mask(scores: Tensor, k: int) -> Tensor:
    idx = scores.topk(k, dim=1).indices
    return torch.zeros_like(scores, dtype=torch.bool).scatter(1, idx, True)
