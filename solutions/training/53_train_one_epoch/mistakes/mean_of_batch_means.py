"""Averages the batch means: the short last batch counts as much as a full one.

Caught by: test_sample_weighted_mean
"""
from __future__ import annotations

from collections.abc import Callable, Iterable

import torch
from torch import Tensor, nn


def train_one_epoch(model: nn.Module, loader: Iterable[tuple[Tensor, Tensor]], optimizer: torch.optim.Optimizer,
                    loss_fn: Callable[[Tensor, Tensor], Tensor], device: torch.device | str) -> float:
    """model.train(); per batch: move to device, zero_grad, forward, loss, backward, step; return the sample-weighted mean loss as a float."""
    model.train()
    total, count = 0.0, 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item()
        count += 1
    return total / count
