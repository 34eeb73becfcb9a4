"""Builds a fresh dataset for every split: items are right, but the factory (which may load a
whole dataset from disk) runs once per split instead of twice.

Caught by: test_returns_subsets_factory_calls
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
    parts = split_indices(n, fractions, seed)
    return [Subset(dataset_factory(train_transform if k == 0 else eval_transform), part) for k, part in enumerate(parts)]
