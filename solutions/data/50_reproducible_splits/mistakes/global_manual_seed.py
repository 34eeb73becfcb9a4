"""Seeds torch's global generator with torch.manual_seed(seed) and splits from it: the indices
are right, but every call resets the caller's random stream (its shuffles, dropout masks and
initialisations now repeat).

Caught by: test_global_seeds_do_not_matter
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import torch
from torch.utils.data import Dataset, Subset, random_split


def split_indices(n: int, fractions: Sequence[float], seed: int) -> list[list[int]]:
    if any(f < 0 for f in fractions) or abs(sum(fractions) - 1.0) > 1e-6:
        raise ValueError(f"bad fractions {fractions}")
    sizes = [math.floor(f * n) for f in fractions]
    sizes[0] += n - sum(sizes)
    torch.manual_seed(seed)
    return [list(s.indices) for s in random_split(range(n), sizes)]


def make_splits(dataset_factory: Callable[[Callable | None], Dataset], n: int, fractions: Sequence[float], seed: int,
                train_transform: Callable | None, eval_transform: Callable | None) -> list[Subset]:
    parts = split_indices(n, fractions, seed)
    train_ds, eval_ds = dataset_factory(train_transform), dataset_factory(eval_transform)
    return [Subset(train_ds, parts[0])] + [Subset(eval_ds, p) for p in parts[1:]]

