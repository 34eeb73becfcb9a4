from __future__ import annotations

from collections.abc import Callable, Iterable

import torch
from torch import Tensor, nn


def evaluate(model: nn.Module, loader: Iterable[tuple[Tensor, Tensor]], loss_fn: Callable[[Tensor, Tensor], Tensor],
             device: torch.device | str) -> tuple[float, float]:
    """Returns the model's mean loss per sample and its accuracy over the loader, as two Python floats."""
    raise NotImplementedError


def predict(model: nn.Module, x: Tensor) -> Tensor:
    """Returns the predicted class index of each sample of x as an int64 tensor of shape (N,)."""
    raise NotImplementedError
