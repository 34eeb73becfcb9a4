"""A correct alternative: advanced indexing with an arange, torch.where, select, and ranks from argsort."""
from __future__ import annotations

import torch
from torch import Tensor


def pick_target_scores(logits: Tensor, targets: Tensor) -> Tensor:
    """logits (N,C), targets (N,) int64 -> (N,) with out[i] = logits[i, targets[i]]."""
    rows = torch.arange(logits.shape[0], device=logits.device)
    return logits[rows, targets]


def zero_above(x: Tensor, threshold: float) -> Tensor:
    """New tensor equal to x with entries > threshold set to 0; x itself is not modified."""
    return torch.where(x > threshold, torch.zeros_like(x), x)


def last_channel(x: Tensor) -> Tensor:
    """x (..., C) -> (...) VIEW of the last channel (shares storage with x), any rank."""
    return x.select(-1, x.shape[-1] - 1)


def topk_mask(scores: Tensor, k: int) -> Tensor:
    """(N,C) -> bool (N,C), True at each row's k largest entries."""
    # rank of every entry within its row (0 = largest); ranks are a permutation, so exactly k are < k
    order = scores.argsort(dim=1, descending=True)
    ranks = order.argsort(dim=1)
    return ranks < k
