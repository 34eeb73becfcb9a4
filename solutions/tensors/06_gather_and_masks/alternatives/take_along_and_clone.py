"""A correct alternative: take_along_dim, clone-then-assign, narrow + squeeze, scatter_ into a bool mask."""
from __future__ import annotations

import torch
from torch import Tensor


def pick_target_scores(logits: Tensor, targets: Tensor) -> Tensor:
    """logits (N,C), targets (N,) int64 -> (N,) with out[i] = logits[i, targets[i]]."""
    return torch.take_along_dim(logits, targets[:, None], dim=1)[:, 0]


def zero_above(x: Tensor, threshold: float) -> Tensor:
    """New tensor equal to x with entries > threshold set to 0; x itself is not modified."""
    y = x.clone()
    y[y > threshold] = 0
    return y


def last_channel(x: Tensor) -> Tensor:
    """x (..., C) -> (...) VIEW of the last channel (shares storage with x), any rank."""
    return x.narrow(-1, x.size(-1) - 1, 1).squeeze(-1)


def topk_mask(scores: Tensor, k: int) -> Tensor:
    """(N,C) -> bool (N,C), True at each row's k largest entries."""
    idx = torch.topk(scores, k, dim=-1).indices
    mask = torch.zeros(scores.shape, dtype=torch.bool, device=scores.device)
    mask.scatter_(-1, idx, torch.ones_like(idx, dtype=torch.bool))
    return mask
