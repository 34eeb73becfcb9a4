"""torch's cross_entropy with reduction="sum" divided by a guarded count, and the clipping written
out by hand (one scale for every gradient): the same contract by another route."""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn


def masked_cross_entropy(logits: Tensor, targets: Tensor, ignore_index: int = -100) -> Tensor:
    total = F.cross_entropy(logits, targets, ignore_index=ignore_index, reduction="sum")
    count = int((targets != ignore_index).sum())
    return total / max(count, 1)


def train_step(model: nn.Module, optimizer: torch.optim.Optimizer, x: Tensor, y: Tensor,
               max_norm: float = 1.0) -> float:
    optimizer.zero_grad()
    loss = masked_cross_entropy(model(x), y)
    value = loss.item()
    if not math.isfinite(value):
        return value
    loss.backward()
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    total = torch.sqrt(sum((g.double() ** 2).sum() for g in grads))
    scale = max_norm / (float(total) + 1e-6)
    if scale < 1:
        for g in grads:
            g.mul_(scale)
    optimizer.step()
    return value
