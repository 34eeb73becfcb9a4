"""Epoch = dataset_size // batch_size iterations, whatever drop_last says: without drop_last the
short last batch is a step too, so the schedule is too short and OneCycleLR raises mid-run.

Caught by: test_steps_per_epoch_examples, test_steps_per_epoch_matches_dataloader, test_whole_run_never_raises_and_ends_at_min_lr
"""
from __future__ import annotations

import torch


def optimizer_steps_per_epoch(num_samples: int, batch_size: int, drop_last: bool, accumulation_steps: int = 1) -> int:
    """optimizer.step() calls per epoch; a trailing partial accumulation group still steps."""
    return num_samples // batch_size // accumulation_steps


def build_onecycle(optimizer: torch.optim.Optimizer, max_lr: float, num_samples: int, batch_size: int, epochs: int,
                   drop_last: bool, accumulation_steps: int = 1) -> torch.optim.lr_scheduler.OneCycleLR:
    """OneCycleLR whose total_steps equals the exact number of optimizer steps of the whole run."""
    per_epoch = optimizer_steps_per_epoch(num_samples, batch_size, drop_last, accumulation_steps)
    return torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=max_lr, total_steps=epochs * per_epoch)

