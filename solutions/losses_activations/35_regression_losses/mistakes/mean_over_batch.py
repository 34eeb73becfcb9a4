"""Divides the sum by the batch size (the first dimension) for 'mean', not by the number of
elements: right for 1-D inputs only.

Caught by: test_matches_torch
"""
from __future__ import annotations

import torch


def regression_loss(pred, target, kind, reduction="mean", delta=1.0):
    if pred.shape != target.shape:
        raise ValueError("pred and target must have the same shape")
    diff = pred - target.to(pred.dtype)
    a = diff.abs()
    losses = {"mse": diff * diff, "l1": a,
              "huber": torch.where(a < delta, 0.5 * diff * diff, delta * (a - 0.5 * delta)),
              "smooth_l1": torch.where(a < delta, 0.5 * diff * diff / delta, a - 0.5 * delta)}
    if kind not in losses or reduction not in ("mean", "sum", "none"):
        raise ValueError(f"bad kind {kind!r} or reduction {reduction!r}")
    loss = losses[kind]
    return loss.sum() / pred.shape[0] if reduction == "mean" else loss.sum() if reduction == "sum" else loss
