"""Pins only when the device argument is CUDA and a GPU is there to copy to (no warning on a host
without one); workers kept with a sampler of indices built from the loader's own generator."""
from __future__ import annotations

import torch
from torch.utils.data import DataLoader, RandomSampler


def make_loaders(train_ds, val_ds, batch_size, num_workers=0, device="cpu", seed=0):
    pin = torch.device(device).type == "cuda" and torch.cuda.is_available()
    common = dict(batch_size=batch_size, num_workers=num_workers, pin_memory=pin,
                  persistent_workers=num_workers > 0)
    sampler = RandomSampler(train_ds, generator=torch.Generator().manual_seed(seed))
    return (DataLoader(train_ds, sampler=sampler, drop_last=True, **common),
            DataLoader(val_ds, **common))
