"""Shuffles both loaders (the same settings copied for validation): the val order changes
every epoch, so predictions no longer line up with the dataset's labels.

Caught by: test_val_in_order_partial_batch, test_two_workers
"""
from __future__ import annotations

import torch
from torch.utils.data import DataLoader, Dataset


def make_loaders(train_ds: Dataset, val_ds: Dataset, batch_size: int, num_workers: int = 0,
                 device: torch.device | str = "cpu", seed: int = 0) -> tuple[DataLoader, DataLoader]:
    pin = torch.device(device).type == "cuda"
    persistent = num_workers > 0
    generator = torch.Generator().manual_seed(seed)
    train = DataLoader(train_ds, batch_size=batch_size, shuffle=True, generator=generator, drop_last=True,
                       num_workers=num_workers, pin_memory=pin, persistent_workers=persistent)
    val = DataLoader(val_ds, batch_size=batch_size, shuffle=True, generator=generator,
                     num_workers=num_workers, pin_memory=pin, persistent_workers=persistent)
    return train, val
