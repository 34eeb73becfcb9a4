"""Clips the scaled gradients at max_norm times the current scale and lets scaler.step unscale
them: the same update as unscale_ then clip at max_norm. On an overflow the clip's coefficient is 0
and the inf entries become NaN, so scaler.step still finds them and skips the step.
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
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(x.device.type, dtype=dtype):
        loss = loss_fn(model(x), y)
    scaler.scale(loss).backward()
    if max_norm is not None:
        # the gradients are scaler.get_scale() times the loss's own (1.0 for a disabled scaler)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm * scaler.get_scale())
    scaler.step(optimizer)
    scaler.update()
    return loss.item()
