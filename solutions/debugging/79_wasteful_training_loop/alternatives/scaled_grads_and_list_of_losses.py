"""Back-propagates each batch's plain mean loss and divides the accumulated gradients by accumulate
before the step, and keeps the window's losses as detached tensors read with one torch.stack at
the log: the same contract by another route."""
from __future__ import annotations

import math
from collections.abc import Iterable

import torch
import torch.nn.functional as F
from torch import Tensor, nn


def train(model: nn.Module, optimizer: torch.optim.Optimizer, batches: Iterable[tuple[Tensor, Tensor]],
          accumulate: int = 4, log_every: int = 10) -> list[float]:
    history, losses = [], []
    optimizer.zero_grad(set_to_none=True)
    for i, (x, y) in enumerate(batches, start=1):
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        losses.append(loss.detach())
        if i % accumulate == 0:
            with torch.no_grad():
                for group in optimizer.param_groups:
                    for p in group["params"]:
                        if p.grad is not None:
                            p.grad.div_(accumulate)
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
        if len(losses) == log_every:
            mean = torch.stack(losses).mean().item()
            losses.clear()
            if not math.isfinite(mean):
                raise FloatingPointError(f"the mean loss of the last {log_every} batches is {mean}")
            history.append(mean)
    return history
