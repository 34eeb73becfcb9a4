"""Drops the trailing partial accumulation group (floor division of the batches): the epoch's
last optimizer step is not counted and OneCycleLR raises before the run ends.

Caught by: test_steps_per_epoch_examples, test_steps_per_epoch_matches_dataloader, test_whole_run_never_raises_and_ends_at_min_lr
"""
from __future__ import annotations

import math

import torch


def optimizer_steps_per_epoch(num_samples: int, batch_size: int, drop_last: bool, accumulation_steps: int = 1) -> int:
    """optimizer.step() calls per epoch; a trailing partial accumulation group still steps."""
    batches = num_samples // batch_size if drop_last else math.ceil(num_samples / batch_size)
    return batches // accumulation_steps


def build_onecycle(optimizer: torch.optim.Optimizer, max_lr: float, num_samples: int, batch_size: int, epochs: int,
                   drop_last: bool, accumulation_steps: int = 1) -> torch.optim.lr_scheduler.OneCycleLR:
    """OneCycleLR whose total_steps equals the exact number of optimizer steps of the whole run."""
    per_epoch = optimizer_steps_per_epoch(num_samples, batch_size, drop_last, accumulation_steps)
    return torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=max_lr, total_steps=epochs * per_epoch)

