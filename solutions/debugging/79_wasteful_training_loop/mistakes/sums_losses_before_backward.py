"""Accumulates the losses of a group of batches in one tensor and calls backward once on the sum: the
gradients are the same, but every batch's activations stay alive until the group's backward, so
the memory grows with accumulate (which exists to save memory). The other two bugs are fixed.

Caught by: test_memory_does_not_grow_with_accumulate
"""
from __future__ import annotations

import math
from collections.abc import Iterable

import torch
import torch.nn.functional as F
from torch import Tensor, nn


def train(model: nn.Module, optimizer: torch.optim.Optimizer, batches: Iterable[tuple[Tensor, Tensor]],
          accumulate: int = 4, log_every: int = 10) -> list[float]:
    """One batched forward per batch, its backward at once (grads accumulate); the window total stays a tensor."""
    history = []
    window, pending = 0.0, 0.0
    for i, (x, y) in enumerate(batches, start=1):
        loss = F.cross_entropy(model(x), y)
        pending = pending + loss / accumulate
        if i % accumulate == 0:
            optimizer.zero_grad()
            pending.backward()
            optimizer.step()
            pending = 0.0
        window = window + loss.detach()
        if i % log_every == 0:
            mean = float(window) / log_every
            if not math.isfinite(mean):
                raise FloatingPointError(f"the mean loss of the batches up to {i} is {mean}")
            history.append(mean)
            window = 0.0
    return history
