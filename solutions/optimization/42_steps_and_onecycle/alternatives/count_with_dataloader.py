"""Alternative: ask a DataLoader over range(num_samples) for its length (it never loads a sample
to answer), then ceil with math; OneCycleLR given epochs and steps_per_epoch."""
from __future__ import annotations

import math

import torch
from torch.utils.data import DataLoader


def optimizer_steps_per_epoch(num_samples: int, batch_size: int, drop_last: bool, accumulation_steps: int = 1) -> int:
    """optimizer.step() calls per epoch; a trailing partial accumulation group still steps."""
    batches = len(DataLoader(range(num_samples), batch_size=batch_size, drop_last=drop_last))
    return math.ceil(batches / accumulation_steps)


def build_onecycle(optimizer: torch.optim.Optimizer, max_lr: float, num_samples: int, batch_size: int, epochs: int,
                   drop_last: bool, accumulation_steps: int = 1) -> torch.optim.lr_scheduler.OneCycleLR:
    """OneCycleLR whose total_steps equals the exact number of optimizer steps of the whole run."""
    steps = optimizer_steps_per_epoch(num_samples, batch_size, drop_last, accumulation_steps)
    return torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr, epochs=epochs, steps_per_epoch=steps,
                                               pct_start=0.3, anneal_strategy="cos")
