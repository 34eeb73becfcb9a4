from __future__ import annotations

import math
from collections.abc import Iterable

import torch
import torch.nn.functional as F
from torch import Tensor, nn


def train(model: nn.Module, optimizer: torch.optim.Optimizer, batches: Iterable[tuple[Tensor, Tensor]],
          accumulate: int = 4, log_every: int = 10) -> list[float]:
    """Trains the model with one optimizer step per accumulate batches. Returns the mean loss of each window of log_every batches."""
    history = []
    window, pending = 0.0, 0.0
    for i, (x, y) in enumerate(batches, start=1):
        loss = sum(F.cross_entropy(model(xi[None]), yi[None]) for xi, yi in zip(x, y)) / len(x)
        pending = pending + loss / accumulate
        if i % accumulate == 0:
            optimizer.zero_grad()
            pending.backward()
            optimizer.step()
            pending = 0.0
        window += loss.item()
        if i % log_every == 0:
            mean = window / log_every
            if not math.isfinite(mean):
                raise FloatingPointError(f"the mean loss of the batches up to {i} is {mean}")
            history.append(mean)
            window = 0.0
    return history
