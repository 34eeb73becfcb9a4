"""Switches the model to eval mode for the probing forward (to make Dropout deterministic) and leaves it there.

Caught by: test_mode_unchanged
"""
from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor, nn


def overfit_one_batch(model: nn.Module, x: Tensor, y: Tensor, loss_fn: Callable[[Tensor, Tensor], Tensor],
                      steps: int = 300, lr: float = 1e-2) -> list[float]:
    model.train()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def unused_parameters(model: nn.Module, *inputs: Tensor) -> list[str]:
    named = [(name, p) for name, p in model.named_parameters() if p.requires_grad]
    model.eval()
    total = model(*inputs).float().sum()
    grads = torch.autograd.grad(total, [p for _, p in named], allow_unused=True)
    return [name for (name, _), g in zip(named, grads) if g is None]
