"""random_split by hand: one seeded randperm, cut into consecutive slices."""
from __future__ import annotations

import itertools
import math

import torch
from torch.utils.data import Subset


def split_indices(n, fractions, seed):
    if min(fractions) < 0:
        raise ValueError("negative fraction")
    if not math.isclose(math.fsum(fractions), 1.0, rel_tol=0.0, abs_tol=1e-6):
        raise ValueError("fractions must add up to 1")
    sizes = [int(math.floor(n * f)) for f in fractions]
    sizes[0] += n - sum(sizes)
    g = torch.Generator()
    g.manual_seed(seed)
    perm = torch.randperm(n, generator=g).tolist()
    bounds = list(itertools.accumulate(sizes))
    return [perm[end - size:end] for end, size in zip(bounds, sizes)]


def make_splits(dataset_factory, n, fractions, seed, train_transform, eval_transform):
    train_part, *rest = split_indices(n, fractions, seed)
    eval_ds = dataset_factory(eval_transform)
    train_ds = dataset_factory(train_transform)
    return [Subset(train_ds, train_part), *(Subset(eval_ds, p) for p in rest)]
