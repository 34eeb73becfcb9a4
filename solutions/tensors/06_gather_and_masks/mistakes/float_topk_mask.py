"""Scatters ones into `torch.zeros_like(scores)`, so the mask is float32, not bool.

Exactly k ones per row at the right places, but a float "mask" cannot be used for boolean indexing
(`x[mask]` would treat it as indices) and `~mask` fails. It also forgets to squeeze gather's (N, 1) result in pick_target_scores.

Caught by: test_topk_mask_dtype, test_topk_mask_selects_largest, test_pick_target_scores_shape
"""
from __future__ import annotations

import torch
from torch import Tensor


def pick_target_scores(logits: Tensor, targets: Tensor) -> Tensor:
    return logits.gather(1, targets.unsqueeze(1))


def zero_above(x: Tensor, threshold: float) -> Tensor:
    return torch.where(x > threshold, torch.zeros_like(x), x)


def last_channel(x: Tensor) -> Tensor:
    return x[..., -1]


def topk_mask(scores: Tensor, k: int) -> Tensor:
    idx = scores.topk(k, dim=1).indices
    return torch.zeros_like(scores).scatter(1, idx, 1.0)
