"""Validates with sum(fractions) != 1 and forgets negative fractions: (0.6, 0.3, 0.1), which
sums to 0.9999999999999999 in floats, is refused, and (1.2, -0.2) is accepted.

Caught by: test_bad_fractions_raise
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import torch
from torch.utils.data import Dataset, Subset, random_split


def split_indices(n: int, fractions: Sequence[float], seed: int) -> list[list[int]]:
    if sum(fractions) != 1:
        raise ValueError("fractions must sum to 1")
    sizes = [math.floor(f * n) for f in fractions]
    sizes[0] += n - sum(sizes)
    generator = torch.Generator().manual_seed(seed)
    return [list(s.indices) for s in random_split(range(n), sizes, generator=generator)]


def make_splits(dataset_factory: Callable[[Callable | None], Dataset], n: int, fractions: Sequence[float], seed: int,
                train_transform: Callable | None, eval_transform: Callable | None) -> list[Subset]:
    parts = split_indices(n, fractions, seed)
    train_ds, eval_ds = dataset_factory(train_transform), dataset_factory(eval_transform)
    return [Subset(train_ds, parts[0])] + [Subset(eval_ds, p) for p in parts[1:]]

