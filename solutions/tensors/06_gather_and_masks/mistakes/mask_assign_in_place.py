"""Zeroes with a masked assignment on the input itself (`x[x > t] = 0; return x`).

The returned values are right, but the caller's tensor is modified: masked assignment is an in-place
write, and `x` is the caller's object. It needed `x.clone()` first (or torch.where / masked_fill).

Caught by: test_zero_above_input_untouched
"""
from __future__ import annotations

import torch
from torch import Tensor


def pick_target_scores(logits: Tensor, targets: Tensor) -> Tensor:
    return logits.gather(1, targets.unsqueeze(1)).squeeze(1)


def zero_above(x: Tensor, threshold: float) -> Tensor:
    x[x > threshold] = 0
    return x


def last_channel(x: Tensor) -> Tensor:
    return x[..., -1]


def topk_mask(scores: Tensor, k: int) -> Tensor:
    idx = scores.topk(k, dim=1).indices
    return torch.zeros_like(scores, dtype=torch.bool).scatter(1, idx, True)
