"""Unscales on every step, clipping only when max_norm is given: after `unscale_` the scaler's
`step` does not unscale again, so without a clip the update is the same; the gradients are also
cleared by setting each `.grad` to None.
"""
from __future__ import annotations
from collections.abc import Callable
from typing import Any

import torch
from torch import Tensor, nn


def amp_train_step(model: nn.Module, x: Tensor, y: Tensor, loss_fn: Callable[[Tensor, Tensor], Tensor],
                   optimizer: torch.optim.Optimizer, scaler: Any, max_norm: float | None = None,
                   dtype: torch.dtype = torch.float16) -> float:
    """Run one mixed-precision training step and return the batch's loss as a float."""
    for param in model.parameters():
        param.grad = None
    with torch.amp.autocast(x.device.type, dtype=dtype):
        prediction = model(x)
        loss = loss_fn(prediction, y)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)  # gradients in the loss's own units from here on
    if max_norm is not None:
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    return float(loss.detach())
