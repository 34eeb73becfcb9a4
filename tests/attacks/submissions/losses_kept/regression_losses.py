"""Attack: exercise 35 forbids torch's regression losses. This hands each kind to torch's own
function, its C entry point in torch._C._nn reached through references taken at import under
names built at run time and kept in a dict: no line names them for the AST, and a wrapper put on
F.mse_loss & co. or on torch._C._nn's during the check never sees the calls.
Honest baseline: every check but the API check (the values are torch's own).
Expected: the API check fails: aten.mse_loss and the others are reached at torch's dispatcher.
"""
from __future__ import annotations

from typing import Literal

import torch
from torch import Tensor

_KEPT = {kind: getattr(torch._C._nn, kind + "_loss") for kind in ("mse", "l1", "huber", "smooth_l1")}
_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def regression_loss(pred: Tensor, target: Tensor, kind: Literal["mse", "l1", "huber", "smooth_l1"],
                    reduction: Literal["mean", "sum", "none"] = "mean", delta: float = 1.0) -> Tensor:
    if pred.shape != target.shape:
        raise ValueError(f"pred has shape {tuple(pred.shape)} but target has shape {tuple(target.shape)}")
    if kind not in _KEPT:
        raise ValueError(f"unknown kind {kind!r}")
    if reduction not in _REDUCTIONS:
        raise ValueError(f"unknown reduction {reduction!r}")
    extra = (delta,) if kind in ("huber", "smooth_l1") else ()  # smooth_l1's beta is delta
    return _KEPT[kind](pred, target.to(pred.dtype), _REDUCTIONS[reduction], *extra)

