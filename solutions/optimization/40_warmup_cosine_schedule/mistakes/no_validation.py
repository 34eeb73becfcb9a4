"""Does not check total_steps against warmup_steps: T <= W builds a schedule (dividing by zero or
by a negative length later) instead of raising ValueError.

Caught by: test_total_not_above_warmup_raises
"""
from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import Tensor


def make_warmup_cosine(optimizer: torch.optim.Optimizer, warmup_steps: int, total_steps: int, min_lr_ratio: float = 0.0) -> torch.optim.lr_scheduler.LRScheduler:
    """Scheduler implementing the contract above per param group; ValueError if total_steps <= warmup_steps."""

    def factor(step: int) -> float:
        if step < warmup_steps:
            return (step + 1) / warmup_steps
        progress = (step - warmup_steps) / (total_steps - warmup_steps)
        return min_lr_ratio + (1 - min_lr_ratio) * 0.5 * (1 + math.cos(math.pi * progress))

    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)


def run_steps(optimizer: torch.optim.Optimizer, scheduler: torch.optim.lr_scheduler.LRScheduler, closure: Callable[[], Tensor], n_steps: int) -> list[float]:
    """n_steps of (zero_grad, closure().backward(), optimizer.step(), scheduler.step()); return the group-0 lr used by each optimizer step."""
    lrs = []
    for _ in range(n_steps):
        optimizer.zero_grad()
        closure().backward()
        lrs.append(float(optimizer.param_groups[0]["lr"]))
        optimizer.step()
        scheduler.step()
    return lrs
