"""A hand-written sampler that builds its seeded generator inside __iter__: reproducible, but
every epoch replays the same permutation, so training sees the same batches in the same order.

Caught by: test_train_epochs_drop_last_reshuffle, test_two_workers
"""
from __future__ import annotations

import torch
from torch.utils.data import DataLoader, Dataset, Sampler


class SeededShuffle(Sampler):
    def __init__(self, n: int, seed: int):
        self.n, self.seed = n, seed

    def __len__(self) -> int:
        return self.n

    def __iter__(self):
        generator = torch.Generator().manual_seed(self.seed)
        return iter(torch.randperm(self.n, generator=generator).tolist())


def make_loaders(train_ds: Dataset, val_ds: Dataset, batch_size: int, num_workers: int = 0,
                 device: torch.device | str = "cpu", seed: int = 0) -> tuple[DataLoader, DataLoader]:
    pin = torch.device(device).type == "cuda"
    persistent = num_workers > 0
    train = DataLoader(train_ds, batch_size=batch_size, sampler=SeededShuffle(len(train_ds), seed), drop_last=True,
                       num_workers=num_workers, pin_memory=pin, persistent_workers=persistent)
    val = DataLoader(val_ds, batch_size=batch_size, shuffle=False,
                     num_workers=num_workers, pin_memory=pin, persistent_workers=persistent)
    return train, val
