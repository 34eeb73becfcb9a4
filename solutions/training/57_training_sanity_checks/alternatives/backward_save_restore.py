"""Alternative: a while loop with model.zero_grad(); unused parameters found with a real backward after
stashing every .grad, the originals put back afterwards (the same tensor objects)."""
from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor, nn


def overfit_one_batch(model: nn.Module, x: Tensor, y: Tensor, loss_fn: Callable[[Tensor, Tensor], Tensor],
                      steps: int = 300, lr: float = 1e-2) -> list[float]:
    params = [p for p in model.parameters()]
    optimizer = torch.optim.Adam(params, lr=lr)
    model.train(True)
    history: list[float] = []
    while len(history) < steps:
        model.zero_grad()
        loss = loss_fn(model(x), y)
        history.append(loss.item())
        loss.backward()
        optimizer.step()
    return history


def unused_parameters(model: nn.Module, *inputs: Tensor) -> list[str]:
    trainable = {name: p for name, p in model.named_parameters() if p.requires_grad}
    stash = {name: p.grad for name, p in trainable.items()}
    for p in trainable.values():
        p.grad = None
    try:
        model(*inputs).float().sum().backward()
        return [name for name, p in trainable.items() if p.grad is None]
    finally:
        for name, p in trainable.items():
            p.grad = stash[name]
