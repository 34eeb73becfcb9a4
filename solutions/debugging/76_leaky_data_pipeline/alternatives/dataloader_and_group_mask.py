"""A DataLoader over a TensorDataset for both splits (a seeded generator for the training one, no
shuffling for validation), groups drawn through a boolean mask, population statistics rebuilt
from sums: the same contract by another route."""
from __future__ import annotations

import torch
from torch import Tensor
from torch.utils.data import DataLoader, TensorDataset


def split_by_group(groups: Tensor, val_fraction: float, seed: int) -> tuple[Tensor, Tensor]:
    ids = torch.unique(groups, sorted=True)
    n_val = max(1, round(val_fraction * len(ids)))
    chosen = torch.zeros(len(ids), dtype=torch.bool)
    chosen[torch.randperm(len(ids), generator=torch.Generator().manual_seed(seed))[:n_val]] = True
    in_val = chosen[torch.searchsorted(ids, groups)]
    everything = torch.arange(len(groups))
    return everything[~in_val], everything[in_val]


def make_loaders(x: Tensor, y: Tensor, groups: Tensor, val_fraction: float = 0.2, batch_size: int = 32,
                 seed: int = 0):
    train_idx, val_idx = split_by_group(groups, val_fraction, seed)
    train_x = x[train_idx].double()
    n = len(train_x)
    mean = train_x.sum(dim=0) / n
    std = (((train_x - mean) ** 2).sum(dim=0) / (n - 1)).sqrt()
    scale = lambda t: ((t.double() - mean) / std).to(x.dtype)  # noqa: E731
    train = DataLoader(TensorDataset(scale(x[train_idx]), y[train_idx]), batch_size=batch_size, shuffle=True,
                       generator=torch.Generator().manual_seed(seed))
    val = DataLoader(TensorDataset(scale(x[val_idx]), y[val_idx]), batch_size=batch_size)
    return train, val
