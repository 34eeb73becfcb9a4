"""Shuffles the validation batches too: the metrics are the same, but predictions no longer line up
with the validation split's order, and two passes disagree. The other three bugs are fixed.

Caught by: test_validation_order_is_fixed
"""
from __future__ import annotations

import math
from collections.abc import Iterator

import torch
from torch import Tensor


def split_by_group(groups: Tensor, val_fraction: float, seed: int) -> tuple[Tensor, Tensor]:
    """Whole groups go to validation: max(1, round(val_fraction * G)) of the G groups, drawn with seed."""
    g = torch.Generator().manual_seed(seed)
    ids = groups.unique()
    n_val = max(1, round(val_fraction * len(ids)))
    val_groups = ids[torch.randperm(len(ids), generator=g)[:n_val]]
    in_val = torch.isin(groups, val_groups)
    return torch.nonzero(~in_val).flatten(), torch.nonzero(in_val).flatten()


class Batches:
    """One permutation for inputs and labels together; no shuffling for validation."""

    def __init__(self, x: Tensor, y: Tensor, batch_size: int, shuffle: bool, generator: torch.Generator):
        self.x, self.y = x, y
        self.batch_size, self.shuffle, self.generator = batch_size, shuffle, generator

    def __len__(self) -> int:
        return math.ceil(len(self.x) / self.batch_size)

    def __iter__(self) -> Iterator[tuple[Tensor, Tensor]]:
        xs, ys = self.x, self.y
        if self.shuffle:
            order = torch.randperm(len(xs), generator=self.generator)
            xs, ys = xs[order], ys[order]
        for start in range(0, len(xs), self.batch_size):
            yield xs[start:start + self.batch_size], ys[start:start + self.batch_size]


def make_loaders(x: Tensor, y: Tensor, groups: Tensor, val_fraction: float = 0.2, batch_size: int = 32,
                 seed: int = 0) -> tuple[Batches, Batches]:
    """Statistics from the training split only, applied to both; the validation batches in a fixed order."""
    train_idx, val_idx = split_by_group(groups, val_fraction, seed)
    mean, std = x[train_idx].mean(dim=0), x[train_idx].std(dim=0)
    x = (x - mean) / std
    g = torch.Generator().manual_seed(seed)
    train = Batches(x[train_idx], y[train_idx], batch_size, shuffle=True, generator=g)
    val = Batches(x[val_idx], y[val_idx], batch_size, shuffle=True, generator=g)
    return train, val
