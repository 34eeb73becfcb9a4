from __future__ import annotations

import torch


def optimizer_steps_per_epoch(num_samples: int, batch_size: int, drop_last: bool, accumulation_steps: int = 1) -> int:
    """Returns how many times optimizer.step() runs in one epoch of the README's training loop."""
    raise NotImplementedError


def build_onecycle(optimizer: torch.optim.Optimizer, max_lr: float, num_samples: int, batch_size: int, epochs: int,
                   drop_last: bool, accumulation_steps: int = 1) -> torch.optim.lr_scheduler.OneCycleLR:
    """Returns a OneCycleLR over optimizer that fits the whole run of that loop."""
    raise NotImplementedError
