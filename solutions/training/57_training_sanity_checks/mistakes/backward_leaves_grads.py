"""Finds unused parameters with a real backward and model.zero_grad(set_to_none=True) before it: grads set
beforehand are lost and the probe's own gradients are left on every used parameter.

Caught by: test_grads_unchanged
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
    model.zero_grad(set_to_none=True)
    model(*inputs).float().sum().backward()
    return [name for name, p in model.named_parameters() if p.requires_grad and p.grad is None]
