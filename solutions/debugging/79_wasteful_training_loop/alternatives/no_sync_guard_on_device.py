"""Counts steps explicitly, keeps the window sum in a preallocated tensor added to in place, and
checks finiteness on the device, reading the mean and the flag back together with one tolist():
the same contract by another route."""
from __future__ import annotations

import math
from collections.abc import Iterable

import torch
import torch.nn.functional as F
from torch import Tensor, nn


def train(model: nn.Module, optimizer: torch.optim.Optimizer, batches: Iterable[tuple[Tensor, Tensor]],
          accumulate: int = 4, log_every: int = 10) -> list[float]:
    history: list[float] = []
    total = None
    seen_in_group = seen_in_window = 0
    for x, y in batches:
        if seen_in_group == 0:
            optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y) / accumulate
        loss.backward()
        seen_in_group += 1
        if seen_in_group == accumulate:
            optimizer.step()
            seen_in_group = 0
        value = loss.detach() * accumulate
        total = value.clone() if total is None else total.add_(value)
        seen_in_window += 1
        if seen_in_window == log_every:
            mean = total / log_every
            mean_value, = mean.reshape(1).tolist()
            if not math.isfinite(mean_value):
                raise FloatingPointError(f"a window's mean loss is {mean_value}")
            history.append(mean_value)
            total, seen_in_window = None, 0
    return history
