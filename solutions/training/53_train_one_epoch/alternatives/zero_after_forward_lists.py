"""Clears with zero_grad(set_to_none=False) between the loss and the backward, and keeps per-batch
(loss, size) pairs in lists, summed at the end."""
from __future__ import annotations

from collections.abc import Callable, Iterable

import torch
from torch import Tensor, nn


def train_one_epoch(model: nn.Module, loader: Iterable[tuple[Tensor, Tensor]], optimizer: torch.optim.Optimizer,
                    loss_fn: Callable[[Tensor, Tensor], Tensor], device: torch.device | str) -> float:
    """model.train(); per batch: move to device, zero_grad, forward, loss, backward, step; return the sample-weighted mean loss as a float."""
    dev = torch.device(device)
    model.train()
    values: list[float] = []
    sizes: list[int] = []
    for batch in loader:
        x, y = (t.to(dev) for t in batch)
        out = model(x)
        loss = loss_fn(out, y)
        optimizer.zero_grad(set_to_none=False)
        loss.backward()
        optimizer.step()
        values.append(float(loss))
        sizes.append(int(x.size(0)))
    return sum(v * n for v, n in zip(values, sizes)) / sum(sizes)
