"""Gives the train loader a generator of its own but forgets to seed it: torch.Generator()
starts from the same default seed, so every seed argument gives the same order.

Caught by: test_seed_reproducible
"""
from __future__ import annotations

import torch
from torch.utils.data import DataLoader, Dataset


def make_loaders(train_ds: Dataset, val_ds: Dataset, batch_size: int, num_workers: int = 0,
                 device: torch.device | str = "cpu", seed: int = 0) -> tuple[DataLoader, DataLoader]:
    pin = torch.device(device).type == "cuda"
    persistent = num_workers > 0
    generator = torch.Generator()
    train = DataLoader(train_ds, batch_size=batch_size, shuffle=True, generator=generator, drop_last=True,
                       num_workers=num_workers, pin_memory=pin, persistent_workers=persistent)
    val = DataLoader(val_ds, batch_size=batch_size, shuffle=False,
                     num_workers=num_workers, pin_memory=pin, persistent_workers=persistent)
    return train, val
