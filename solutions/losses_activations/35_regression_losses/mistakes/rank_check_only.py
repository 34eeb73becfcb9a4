"""Checks only that pred and target have the same number of dimensions: the usual trap, `(N, 1)`
against `(N,)`, raises, but equal ranks of different shapes broadcast (`(4, 1)` against `(1, 4)`
gives a `(4, 4)` loss) or fail inside torch with a RuntimeError (`(2, 3)` against `(3, 2)`).

Caught by: test_shape_mismatch_raises
"""
from __future__ import annotations

from typing import Literal

import torch
from torch import Tensor


def regression_loss(pred: Tensor, target: Tensor, kind: Literal["mse", "l1", "huber", "smooth_l1"],
                    reduction: Literal["mean", "sum", "none"] = "mean", delta: float = 1.0) -> Tensor:
    """Elementwise regression loss with torch-identical definitions (smooth_l1 uses beta=delta); ValueError if shapes differ."""
    if pred.dim() != target.dim():  # catches (N, 1) vs (N,), not (4, 1) vs (1, 4) nor (2, 3) vs (3, 2)
        raise ValueError(f"pred has {pred.dim()} dims but target has {target.dim()}")
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
