"""Seeds torch's global generator with torch.manual_seed(seed) and shuffles without a
generator of the loader's own: the order is drawn when an epoch starts, from whatever the global
state is by then, so any seeding or drawing in between changes it.

Caught by: test_own_generator
"""
from __future__ import annotations

import torch
from torch.utils.data import DataLoader, Dataset


def make_loaders(train_ds: Dataset, val_ds: Dataset, batch_size: int, num_workers: int = 0,
                 device: torch.device | str = "cpu", seed: int = 0) -> tuple[DataLoader, DataLoader]:
    pin = torch.device(device).type == "cuda"
    persistent = num_workers > 0
    torch.manual_seed(seed)
    train = DataLoader(train_ds, batch_size=batch_size, shuffle=True, drop_last=True,
                       num_workers=num_workers, pin_memory=pin, persistent_workers=persistent)
    val = DataLoader(val_ds, batch_size=batch_size, shuffle=False,
                     num_workers=num_workers, pin_memory=pin, persistent_workers=persistent)
    return train, val
