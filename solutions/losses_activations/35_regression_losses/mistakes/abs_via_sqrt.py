"""Writes |d| as sqrt(d²): the values are right, but the gradient at pred == target is NaN (the
derivative of sqrt at 0 is infinite, times 0), where torch's L1 gives 0.

Caught by: test_l1_grad_zero_at_equal
"""
from __future__ import annotations

import torch


def regression_loss(pred, target, kind, reduction="mean", delta=1.0):
    if pred.shape != target.shape:
        raise ValueError("pred and target must have the same shape")
    diff = pred - target.to(pred.dtype)
    a = torch.sqrt(diff * diff)
    losses = {"mse": diff * diff, "l1": a,
              "huber": torch.where(a < delta, 0.5 * diff * diff, delta * (a - 0.5 * delta)),
              "smooth_l1": torch.where(a < delta, 0.5 * diff * diff / delta, a - 0.5 * delta)}
    if kind not in losses or reduction not in ("mean", "sum", "none"):
        raise ValueError(f"bad kind {kind!r} or reduction {reduction!r}")
    loss = losses[kind]
    return loss.mean() if reduction == "mean" else loss.sum() if reduction == "sum" else loss
