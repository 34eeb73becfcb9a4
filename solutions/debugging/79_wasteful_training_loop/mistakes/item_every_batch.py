"""Reads every batch's loss back with .item() to add it to a Python total: the values are right, but
on a GPU each read waits for every queued kernel, once per batch instead of once per window. The
other two bugs are fixed.

Caught by: test_reads_back_once_per_window
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
    window = 0.0
    for i, (x, y) in enumerate(batches, start=1):
        if (i - 1) % accumulate == 0:
            optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        (loss / accumulate).backward()
        if i % accumulate == 0:
            optimizer.step()
        window += loss.item()
        if i % log_every == 0:
            mean = window / log_every
            if not math.isfinite(mean):
                raise FloatingPointError(f"the mean loss of the batches up to {i} is {mean}")
            history.append(mean)
            window = 0.0
    return history
