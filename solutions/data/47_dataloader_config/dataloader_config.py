from __future__ import annotations

import torch
from torch.utils.data import DataLoader, Dataset


def make_loaders(train_ds: Dataset, val_ds: Dataset, batch_size: int, num_workers: int = 0,
                 device: torch.device | str = "cpu", seed: int = 0) -> tuple[DataLoader, DataLoader]:
    """Train: shuffled with its own torch.Generator seeded by seed, drop_last=True; val: in order, keeps the last partial batch; pin_memory iff device is CUDA; persistent_workers iff num_workers > 0."""
    pin = torch.device(device).type == "cuda"
    persistent = num_workers > 0
    generator = torch.Generator().manual_seed(seed)
    train = DataLoader(train_ds, batch_size=batch_size, shuffle=True, generator=generator, drop_last=True,
                       num_workers=num_workers, pin_memory=pin, persistent_workers=persistent)
    val = DataLoader(val_ds, batch_size=batch_size, shuffle=False, drop_last=False,
                     num_workers=num_workers, pin_memory=pin, persistent_workers=persistent)
    return train, val
