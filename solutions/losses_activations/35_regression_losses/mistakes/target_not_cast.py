"""Subtracts the target as it comes: a float64 target makes the loss of a float32 pred float64
(type promotion), where the contract keeps pred's dtype.

Caught by: test_target_cast_to_pred_dtype
"""
from __future__ import annotations

import torch


def regression_loss(pred, target, kind, reduction="mean", delta=1.0):
    if pred.shape != target.shape:
        raise ValueError("pred and target must have the same shape")
    diff = pred - target
    a = diff.abs()
    losses = {"mse": diff * diff, "l1": a,
              "huber": torch.where(a < delta, 0.5 * diff * diff, delta * (a - 0.5 * delta)),
              "smooth_l1": torch.where(a < delta, 0.5 * diff * diff / delta, a - 0.5 * delta)}
    if kind not in losses or reduction not in ("mean", "sum", "none"):
        raise ValueError(f"bad kind {kind!r} or reduction {reduction!r}")
    loss = losses[kind]
    return loss.mean() if reduction == "mean" else loss.sum() if reduction == "sum" else loss
