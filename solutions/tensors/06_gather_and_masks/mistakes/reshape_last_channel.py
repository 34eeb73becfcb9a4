"""Flattens the leading dimensions to pick the channel, `x.reshape(-1, C)[:, -1].reshape(x.shape[:-1])`:
for a contiguous x every reshape is a view, so the result shares x's storage; but `reshape` copies
when the strides do not allow a view (a transposed x), and then the result is a copy that writes
never reach.

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
    return x.reshape(-1, x.shape[-1])[:, -1].reshape(x.shape[:-1])


def topk_mask(scores: Tensor, k: int) -> Tensor:
    idx = scores.topk(k, dim=1).indices
    return torch.zeros_like(scores, dtype=torch.bool).scatter(1, idx, True)
