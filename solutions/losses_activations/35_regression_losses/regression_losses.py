"""Reference for 35_regression_losses: MSE, L1, Huber and SmoothL1 with torch's definitions."""
from __future__ import annotations

from typing import Literal

import torch
from torch import Tensor


def regression_loss(pred: Tensor, target: Tensor, kind: Literal["mse", "l1", "huber", "smooth_l1"],
                    reduction: Literal["mean", "sum", "none"] = "mean", delta: float = 1.0) -> Tensor:
    """Elementwise regression loss with torch-identical definitions (smooth_l1 uses beta=delta); ValueError if shapes differ."""
    if pred.shape != target.shape:
        raise ValueError(f"pred has shape {tuple(pred.shape)} but target has shape {tuple(target.shape)}")
    diff = pred - target.to(pred.dtype)
    abs_diff = diff.abs()
    if kind == "mse":
        loss = diff * diff
    elif kind == "l1":
        loss = abs_diff
    elif kind == "huber":
        loss = torch.where(abs_diff < delta, 0.5 * diff * diff, delta * (abs_diff - 0.5 * delta))
    elif kind == "smooth_l1":
        loss = torch.where(abs_diff < delta, 0.5 * diff * diff / delta, abs_diff - 0.5 * delta)
    else:
        raise ValueError(f"unknown kind {kind!r}")
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"unknown reduction {reduction!r}")
