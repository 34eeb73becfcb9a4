"""Keeps the program's Batches class but shuffles indices and gathers both tensors with them, and
picks the validation groups by sorting random keys: the same contract by another route."""
from __future__ import annotations

import math
from collections.abc import Iterator

import torch
from torch import Tensor


def split_by_group(groups: Tensor, val_fraction: float, seed: int) -> tuple[Tensor, Tensor]:
    g = torch.Generator().manual_seed(seed)
    ids = sorted(set(groups.tolist()))
    n_val = max(1, round(val_fraction * len(ids)))
    keys = torch.rand(len(ids), generator=g)
    val_groups = {ids[i] for i in torch.argsort(keys)[:n_val].tolist()}
    train = [i for i, gr in enumerate(groups.tolist()) if gr not in val_groups]
    val = [i for i, gr in enumerate(groups.tolist()) if gr in val_groups]
    return torch.tensor(train, dtype=torch.int64), torch.tensor(val, dtype=torch.int64)


class Batches:
    def __init__(self, x: Tensor, y: Tensor, batch_size: int, shuffle: bool, generator: torch.Generator):
        self.x, self.y = x, y
        self.batch_size, self.shuffle, self.generator = batch_size, shuffle, generator

    def __len__(self) -> int:
        return math.ceil(len(self.x) / self.batch_size)

    def __iter__(self) -> Iterator[tuple[Tensor, Tensor]]:
        n = len(self.x)
        index = torch.randperm(n, generator=self.generator) if self.shuffle else torch.arange(n)
        for start in range(0, n, self.batch_size):
            part = index[start:start + self.batch_size]
            yield self.x[part], self.y[part]


def make_loaders(x: Tensor, y: Tensor, groups: Tensor, val_fraction: float = 0.2, batch_size: int = 32,
                 seed: int = 0) -> tuple[Batches, Batches]:
    train_idx, val_idx = split_by_group(groups, val_fraction, seed)
    std, mean = torch.std_mean(x[train_idx], dim=0)
    g = torch.Generator().manual_seed(seed)
    train = Batches((x[train_idx] - mean) / std, y[train_idx], batch_size, shuffle=True, generator=g)
    val = Batches((x[val_idx] - mean) / std, y[val_idx], batch_size, shuffle=False, generator=g)
    return train, val
