"""A sampler of one's own: one generator seeded in __init__, a new randperm from it each epoch."""
from __future__ import annotations

import torch
from torch.utils.data import DataLoader, Sampler


class EpochShuffle(Sampler):
    def __init__(self, size, seed):
        self.size = size
        self.gen = torch.Generator().manual_seed(seed)

    def __len__(self):
        return self.size

    def __iter__(self):
        yield from torch.randperm(self.size, generator=self.gen).tolist()


def make_loaders(train_ds, val_ds, batch_size, num_workers=0, device="cpu", seed=0):
    if isinstance(device, str):
        device = torch.device(device)
    pinned = device.type == "cuda"
    keep = bool(num_workers)
    loaders = []
    for ds, sampler, drop in ((train_ds, EpochShuffle(len(train_ds), seed), True), (val_ds, None, False)):
        loaders.append(DataLoader(ds, batch_size, sampler=sampler, drop_last=drop, num_workers=num_workers,
                                  pin_memory=pinned, persistent_workers=keep))
    return tuple(loaders)
