"""Compares the device with the string 'cuda': right for device='cuda', but
torch.device('cuda', 0) == 'cuda' is False and so is 'cuda:0' == 'cuda': no pinning for those.

Caught by: test_pin_memory_and_persistent_workers
"""
from __future__ import annotations

import torch
from torch.utils.data import DataLoader, Dataset


def make_loaders(train_ds: Dataset, val_ds: Dataset, batch_size: int, num_workers: int = 0,
                 device: torch.device | str = "cpu", seed: int = 0) -> tuple[DataLoader, DataLoader]:
    pin = device == "cuda"
    persistent = num_workers > 0
    generator = torch.Generator().manual_seed(seed)
    train = DataLoader(train_ds, batch_size=batch_size, shuffle=True, generator=generator, drop_last=True,
                       num_workers=num_workers, pin_memory=pin, persistent_workers=persistent)
    val = DataLoader(val_ds, batch_size=batch_size, shuffle=False,
                     num_workers=num_workers, pin_memory=pin, persistent_workers=persistent)
    return train, val
