from __future__ import annotations
from collections.abc import Callable
from typing import Any
import torch
from torch import Tensor, nn


def amp_train_step(model: nn.Module, x: Tensor, y: Tensor, loss_fn: Callable[[Tensor, Tensor], Tensor],
                   optimizer: torch.optim.Optimizer, scaler: Any, max_norm: float | None = None,
                   dtype: torch.dtype = torch.float16) -> float:
    """Train model for one mixed-precision step on the batch (x, y) with optimizer and scaler.

    Return the batch's loss before the update as a Python float.
    """
    raise NotImplementedError
