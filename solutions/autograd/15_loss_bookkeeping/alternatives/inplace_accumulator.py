"""A correct alternative: a zero accumulator created lazily on the loss's device, updated in place under no_grad."""
from __future__ import annotations

import torch
from torch import Tensor


class RunningMean:
    """Sample-weighted running mean of per-batch losses: never retains graphs, accumulates on-device in float64/float32, syncs only in compute()."""

    def __init__(self) -> None:
        self.total: Tensor | None = None
        self.count = 0

    def update(self, batch_loss: Tensor, n: int) -> None:
        with torch.no_grad():  # nothing computed here records a graph
            if self.total is None:
                dtype = torch.float32 if batch_loss.device.type == "mps" else torch.float64
                self.total = torch.zeros((), dtype=dtype, device=batch_loss.device)
            self.total.add_(batch_loss.to(self.total.dtype), alpha=n)
        self.count += n

    def compute(self) -> float:
        if self.count == 0:
            raise ValueError("nothing to average: call update() first")
        return (self.total / self.count).item()

    def reset(self) -> None:
        self.total = None
        self.count = 0
