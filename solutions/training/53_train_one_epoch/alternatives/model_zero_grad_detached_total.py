"""Clears with model.zero_grad() before the forward, moves with non_blocking, and keeps the running
total as a detached tensor on the device (read back once at the end)."""
from __future__ import annotations

from collections.abc import Callable, Iterable

import torch
from torch import Tensor, nn


def train_one_epoch(model: nn.Module, loader: Iterable[tuple[Tensor, Tensor]], optimizer: torch.optim.Optimizer,
                    loss_fn: Callable[[Tensor, Tensor], Tensor], device: torch.device | str) -> float:
    """model.train(); per batch: move to device, zero_grad, forward, loss, backward, step; return the sample-weighted mean loss as a float."""
    model.train(True)
    running = None
    seen = 0
    for inputs, targets in loader:
        inputs = inputs.to(device, non_blocking=True)
        targets = targets.to(device, non_blocking=True)
        model.zero_grad(set_to_none=True)
        batch_loss = loss_fn(model(inputs), targets)
        batch_loss.backward()
        optimizer.step()
        weighted = batch_loss.detach() * len(inputs)
        running = weighted if running is None else running + weighted
        seen += len(inputs)
    return float(running) / seen
