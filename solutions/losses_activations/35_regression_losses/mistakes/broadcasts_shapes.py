"""Never compares the shapes: (N, 1) against (N,) broadcasts to (N, N), as nn.MSELoss does with
only a warning, and a wrong number comes back instead of a ValueError.

Caught by: test_shape_mismatch_raises
"""
from __future__ import annotations

import torch


def regression_loss(pred, target, kind, reduction="mean", delta=1.0):
    diff = pred - target.to(pred.dtype)
    a = diff.abs()
    losses = {"mse": diff * diff, "l1": a,
              "huber": torch.where(a < delta, 0.5 * diff * diff, delta * (a - 0.5 * delta)),
              "smooth_l1": torch.where(a < delta, 0.5 * diff * diff / delta, a - 0.5 * delta)}
    if kind not in losses or reduction not in ("mean", "sum", "none"):
        raise ValueError(f"bad kind {kind!r} or reduction {reduction!r}")
    loss = losses[kind]
    return loss.mean() if reduction == "mean" else loss.sum() if reduction == "sum" else loss
