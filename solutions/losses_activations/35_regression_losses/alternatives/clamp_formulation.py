"""Alternative: Huber as 0.5·min(|d|, delta)² + delta·(|d| - min(|d|, delta)), SmoothL1 = Huber / delta."""
from __future__ import annotations

import torch


def _reduce(loss, reduction):
    match reduction:
        case "mean":
            return loss.sum() / loss.numel()
        case "sum":
            return loss.sum()
        case "none":
            return loss
    raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


def regression_loss(pred, target, kind, reduction="mean", delta=1.0):
    if tuple(pred.shape) != tuple(target.shape):
        raise ValueError(f"shape mismatch: {tuple(pred.shape)} vs {tuple(target.shape)}")
    target = target.type(pred.dtype)
    err = torch.abs(torch.sub(pred, target))
    match kind:
        case "mse":
            loss = err.pow(2)
        case "l1":
            loss = err
        case "huber" | "smooth_l1":
            quad = torch.clamp(err, max=delta)
            loss = 0.5 * quad.pow(2) + delta * (err - quad)
            if kind == "smooth_l1":
                loss = loss / delta
        case _:
            raise ValueError(f"unknown kind {kind!r}")
    return _reduce(loss, reduction)
