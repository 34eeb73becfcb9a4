"""Sizes OneCycleLR for one epoch only (total_steps = the steps of an epoch, as if it were stepped
once per epoch): the run outlives the schedule and scheduler.step() raises after the first epoch.

Caught by: test_whole_run_never_raises_and_ends_at_min_lr, test_peak_at_pct_start, test_returns_onecycle
"""
from __future__ import annotations

import torch


def optimizer_steps_per_epoch(num_samples: int, batch_size: int, drop_last: bool, accumulation_steps: int = 1) -> int:
    """optimizer.step() calls per epoch; a trailing partial accumulation group still steps."""
    if drop_last:
        batches = num_samples // batch_size                    # the short last batch is dropped
    else:
        batches = -(-num_samples // batch_size)                # ceil: the short last batch is kept
    return -(-batches // accumulation_steps)                   # a leftover group still steps


def build_onecycle(optimizer: torch.optim.Optimizer, max_lr: float, num_samples: int, batch_size: int, epochs: int,
                   drop_last: bool, accumulation_steps: int = 1) -> torch.optim.lr_scheduler.OneCycleLR:
    """OneCycleLR whose total_steps equals the exact number of optimizer steps of the whole run."""
    per_epoch = optimizer_steps_per_epoch(num_samples, batch_size, drop_last, accumulation_steps)
    return torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=max_lr, total_steps=per_epoch)
