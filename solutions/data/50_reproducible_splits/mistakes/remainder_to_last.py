"""Gives the last split whatever is left over (n minus the floored sizes of the others), the
usual hand-written rounding fix: n=1001 (0.7, 0.15, 0.15) gives 700, 150, 151.

Caught by: test_sizes_disjoint_cover, test_indices_match_random_split
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import torch
from torch.utils.data import Dataset, Subset, random_split


def split_indices(n: int, fractions: Sequence[float], seed: int) -> list[list[int]]:
    if any(f < 0 for f in fractions) or abs(sum(fractions) - 1.0) > 1e-6:
        raise ValueError(f"bad fractions {fractions}")
    sizes = [int(f * n) for f in fractions[:-1]]
    sizes.append(n - sum(sizes))
    generator = torch.Generator().manual_seed(seed)
    return [list(s.indices) for s in random_split(range(n), sizes, generator=generator)]


def make_splits(dataset_factory: Callable[[Callable | None], Dataset], n: int, fractions: Sequence[float], seed: int,
                train_transform: Callable | None, eval_transform: Callable | None) -> list[Subset]:
    parts = split_indices(n, fractions, seed)
    train_ds, eval_ds = dataset_factory(train_transform), dataset_factory(eval_transform)
    return [Subset(train_ds, parts[0])] + [Subset(eval_ds, p) for p in parts[1:]]

