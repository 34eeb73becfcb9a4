from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
from torch import Tensor, nn


def train_accumulated(model: nn.Module, optimizer: torch.optim.Optimizer, loss_fn: Callable[[Tensor, Tensor], Tensor],
                      micro_batches: Sequence[tuple[Tensor, Tensor]], accumulation_steps: int, max_norm: float | None = None) -> list[float]:
    """Trains model for one pass over micro_batches with gradient accumulation, one optimizer step per group of micro-batches. Returns the loss of each micro-batch as a Python float."""
    raise NotImplementedError
