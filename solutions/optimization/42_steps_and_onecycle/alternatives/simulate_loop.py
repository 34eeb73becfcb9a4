"""Alternative: walk the epoch as a training loop would (batch sizes, an accumulation counter,
a step at each full group and at the end), a numpy integer as the count, and a OneCycleLR
subclass with one max_lr per group."""
from __future__ import annotations

import numpy as np
import torch


def optimizer_steps_per_epoch(num_samples: int, batch_size: int, drop_last: bool, accumulation_steps: int = 1) -> int:
    """optimizer.step() calls per epoch; a trailing partial accumulation group still steps."""
    sizes = [min(batch_size, num_samples - start) for start in range(0, num_samples, batch_size)]
    if drop_last and sizes and sizes[-1] < batch_size:
        sizes.pop()
    steps, pending = np.int64(0), 0
    for _ in sizes:
        pending += 1
        if pending == accumulation_steps:
            steps, pending = steps + 1, 0
    if pending:
        steps += 1
    return steps


class RunOneCycle(torch.optim.lr_scheduler.OneCycleLR):
    """OneCycleLR sized from the run's description."""


def build_onecycle(optimizer: torch.optim.Optimizer, max_lr: float, num_samples: int, batch_size: int, epochs: int,
                   drop_last: bool, accumulation_steps: int = 1) -> torch.optim.lr_scheduler.OneCycleLR:
    """OneCycleLR whose total_steps equals the exact number of optimizer steps of the whole run."""
    total = int(optimizer_steps_per_epoch(num_samples, batch_size, drop_last, accumulation_steps)) * epochs
    return RunOneCycle(optimizer, max_lr=[max_lr] * len(optimizer.param_groups), total_steps=total)
