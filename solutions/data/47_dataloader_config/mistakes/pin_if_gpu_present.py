"""Decides pin_memory from the host (torch.cuda.is_available()) instead of the device
argument: device='cuda' on a host without GPU gets False, device='cpu' on a GPU host True.

Caught by: test_pin_memory_and_persistent_workers
"""
from __future__ import annotations

import torch
from torch.utils.data import DataLoader, Dataset


def make_loaders(train_ds: Dataset, val_ds: Dataset, batch_size: int, num_workers: int = 0,
                 device: torch.device | str = "cpu", seed: int = 0) -> tuple[DataLoader, DataLoader]:
    pin = torch.cuda.is_available()
    persistent = num_workers > 0
    generator = torch.Generator().manual_seed(seed)
    train = DataLoader(train_ds, batch_size=batch_size, shuffle=True, generator=generator, drop_last=True,
                       num_workers=num_workers, pin_memory=pin, persistent_workers=persistent)
    val = DataLoader(val_ds, batch_size=batch_size, shuffle=False,
                     num_workers=num_workers, pin_memory=pin, persistent_workers=persistent)
    return train, val
