"""Builds the picked scores with a Python loop and `.item()`, then `torch.tensor(list)`.

The values and the shape are right, but `.item()` leaves autograd: the result is a brand-new leaf
that does not require grad, so no gradient reaches the logits (and every element costs a host sync
on CUDA).

Caught by: test_pick_grad_one_hot
"""
from __future__ import annotations

import torch
from torch import Tensor


def pick_target_scores(logits: Tensor, targets: Tensor) -> Tensor:
    values = [logits[i, t].item() for i, t in enumerate(targets.tolist())]
    return torch.tensor(values, dtype=logits.dtype, device=logits.device)


def zero_above(x: Tensor, threshold: float) -> Tensor:
    return x.masked_fill(x > threshold, 0)


def last_channel(x: Tensor) -> Tensor:
    return x[..., -1]


def topk_mask(scores: Tensor, k: int) -> Tensor:
    idx = scores.topk(k, dim=1).indices
    return torch.zeros_like(scores, dtype=torch.bool).scatter(1, idx, True)
