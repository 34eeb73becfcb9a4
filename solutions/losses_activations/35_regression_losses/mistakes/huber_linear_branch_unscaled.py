"""Mixes the two definitions: Huber's quadratic branch 0.5·d² with SmoothL1's linear branch
|d| - 0.5·delta (no factor delta). For delta = 1 nothing shows; for any other delta the value and
the slope both jump at |d| = delta.

Caught by: test_matches_torch, test_huber_is_delta_smooth_l1, test_huber_grad_continuous
"""
from __future__ import annotations

import torch


def regression_loss(pred, target, kind, reduction="mean", delta=1.0):
    if pred.shape != target.shape:
        raise ValueError("pred and target must have the same shape")
    diff = pred - target.to(pred.dtype)
    a = diff.abs()
    losses = {"mse": diff * diff, "l1": a,
              "huber": torch.where(a < delta, 0.5 * diff * diff, a - 0.5 * delta),
              "smooth_l1": torch.where(a < delta, 0.5 * diff * diff / delta, a - 0.5 * delta)}
    if kind not in losses or reduction not in ("mean", "sum", "none"):
        raise ValueError(f"bad kind {kind!r} or reduction {reduction!r}")
    loss = losses[kind]
    return loss.mean() if reduction == "mean" else loss.sum() if reduction == "sum" else loss
