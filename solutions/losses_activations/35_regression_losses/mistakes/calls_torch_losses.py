"""Dispatches to torch's functional losses after checking the shapes: right values, forbidden.

Caught by: test_forbidden_apis
"""
from __future__ import annotations

import torch.nn.functional as F


def regression_loss(pred, target, kind, reduction="mean", delta=1.0):
    if pred.shape != target.shape:
        raise ValueError("pred and target must have the same shape")
    target = target.to(pred.dtype)
    if kind == "mse":
        return F.mse_loss(pred, target, reduction=reduction)
    if kind == "l1":
        return F.l1_loss(pred, target, reduction=reduction)
    if kind == "huber":
        return F.huber_loss(pred, target, reduction=reduction, delta=delta)
    if kind == "smooth_l1":
        return F.smooth_l1_loss(pred, target, reduction=reduction, beta=delta)
    raise ValueError(f"unknown kind {kind!r}")
