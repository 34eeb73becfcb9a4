"""Takes the last channel with a list index, `x[..., [-1]].squeeze(-1)`.

Shape and values are right, but an index list (or tensor) is advanced indexing, which always copies:
the result no longer shares storage with x, so writes do not propagate.

Caught by: test_last_channel_is_view
"""
from __future__ import annotations

import torch
from torch import Tensor


def pick_target_scores(logits: Tensor, targets: Tensor) -> Tensor:
    return logits.gather(1, targets.unsqueeze(1)).squeeze(1)


def zero_above(x: Tensor, threshold: float) -> Tensor:
    return torch.where(x > threshold, torch.zeros_like(x), x)


def last_channel(x: Tensor) -> Tensor:
    return x[..., [-1]].squeeze(-1)


def topk_mask(scores: Tensor, k: int) -> Tensor:
    idx = scores.topk(k, dim=1).indices
    return torch.zeros_like(scores, dtype=torch.bool).scatter(1, idx, True)
