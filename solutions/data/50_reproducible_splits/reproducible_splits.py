from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import torch
from torch.utils.data import Dataset, Subset, random_split


def split_indices(n: int, fractions: Sequence[float], seed: int) -> list[list[int]]:
    """Sizes floor(f*n) with the remainder added to split 0; indices those of torch.utils.data.random_split(range(n), sizes, generator=torch.Generator().manual_seed(seed)) (one right answer of many)."""
    fractions = [float(f) for f in fractions]
    if any(f < 0 for f in fractions):
        raise ValueError(f"fractions must be non-negative, got {fractions}")
    if abs(sum(fractions) - 1.0) > 1e-6:
        raise ValueError(f"fractions must sum to 1, got {sum(fractions)}")
    sizes = [math.floor(f * n) for f in fractions]
    sizes[0] += n - sum(sizes)
    generator = torch.Generator().manual_seed(seed)
    return [list(part.indices) for part in random_split(range(n), sizes, generator=generator)]


def make_splits(dataset_factory: Callable[[Callable | None], Dataset], n: int, fractions: Sequence[float], seed: int,
                train_transform: Callable | None, eval_transform: Callable | None) -> list[Subset]:
    """Subsets over separate dataset instances: split 0 built with train_transform, the others with eval_transform."""
    parts = split_indices(n, fractions, seed)
    train_ds = dataset_factory(train_transform)
    eval_ds = dataset_factory(eval_transform)
    return [Subset(train_ds, parts[0])] + [Subset(eval_ds, part) for part in parts[1:]]
