from __future__ import annotations

from collections.abc import Callable, Iterable

import torch
from torch import Tensor, nn


def train_one_epoch(model: nn.Module, loader: Iterable[tuple[Tensor, Tensor]], optimizer: torch.optim.Optimizer,
                    loss_fn: Callable[[Tensor, Tensor], Tensor], device: torch.device | str) -> float:
    """Trains the model for one pass over the loader, one optimizer step per batch.

    Returns the epoch's mean loss per sample as a Python float.
    """
    raise NotImplementedError
