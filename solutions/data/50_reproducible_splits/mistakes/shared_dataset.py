"""The 000#45 pattern: one dataset built with the training transform, split with random_split;
every subset shares it, so validation and test items get the training augmentation.

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
    dataset = dataset_factory(train_transform)
    return [Subset(dataset, part) for part in split_indices(n, fractions, seed)]
