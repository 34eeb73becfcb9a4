"""Builds one dataset and sets its transform attribute per split after splitting: the subsets
share the object, so the last assignment (eval_transform) wins for training too.

Caught by: test_per_split_transforms
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
    generator = torch.Generator().manual_seed(seed)
    return [list(s.indices) for s in random_split(range(n), sizes, generator=generator)]


def make_splits(dataset_factory: Callable[[Callable | None], Dataset], n: int, fractions: Sequence[float], seed: int,
                train_transform: Callable | None, eval_transform: Callable | None) -> list[Subset]:
    dataset = dataset_factory(None)
    splits = [Subset(dataset, part) for part in split_indices(n, fractions, seed)]
    splits[0].dataset.transform = train_transform
    for split in splits[1:]:
        split.dataset.transform = eval_transform
    return splits
