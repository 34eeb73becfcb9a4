"""Builds the top-k mask by comparing against each row's k-th largest value.

`scores >= kth` is a bool tensor and right when values are distinct, but every entry tied with the
k-th value is also True, so rows with ties get more than k True entries.

Caught by: test_topk_mask_dtype
"""
from __future__ import annotations

import torch
from torch import Tensor


def pick_target_scores(logits: Tensor, targets: Tensor) -> Tensor:
    return logits.gather(1, targets.unsqueeze(1)).squeeze(1)


def zero_above(x: Tensor, threshold: float) -> Tensor:
    return torch.where(x > threshold, torch.zeros_like(x), x)


def last_channel(x: Tensor) -> Tensor:
    return x[..., -1]


def topk_mask(scores: Tensor, k: int) -> Tensor:
    kth = scores.topk(k, dim=1).values[:, -1:]
    return scores >= kth
