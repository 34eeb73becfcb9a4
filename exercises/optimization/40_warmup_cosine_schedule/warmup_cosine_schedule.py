from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor


def make_warmup_cosine(optimizer: torch.optim.Optimizer, warmup_steps: int, total_steps: int, min_lr_ratio: float = 0.0) -> torch.optim.lr_scheduler.LRScheduler:
    """Return a scheduler that gives every param group of optimizer a linear warmup followed by a cosine decay."""
    raise NotImplementedError


def run_steps(optimizer: torch.optim.Optimizer, scheduler: torch.optim.lr_scheduler.LRScheduler, closure: Callable[[], Tensor], n_steps: int) -> list[float]:
    """Run n_steps training steps on the loss closure returns. Return the learning rate of param group 0 used by each optimizer step."""
    raise NotImplementedError
