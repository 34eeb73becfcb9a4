"""Sizes with NumPy, the permutation cut with torch.split, and a dict of datasets by role."""
from __future__ import annotations

import numpy as np
import torch
from torch.utils.data import Subset


def split_indices(n, fractions, seed):
    f = np.asarray(fractions, dtype=np.float64)
    if (f < 0).any() or abs(f.sum() - 1.0) > 1e-6:
        raise ValueError(f"invalid split fractions {tuple(fractions)}")
    sizes = np.floor(f * n).astype(np.int64)
    sizes[0] += n - sizes.sum()
    gen = torch.Generator().manual_seed(int(seed))
    chunks = torch.split(torch.randperm(n, generator=gen), sizes.tolist())
    return [chunk.tolist() for chunk in chunks]


def make_splits(dataset_factory, n, fractions, seed, train_transform, eval_transform):
    datasets = {"train": dataset_factory(train_transform), "eval": dataset_factory(eval_transform)}
    out = []
    for k, indices in enumerate(split_indices(n, fractions, seed)):
        out.append(Subset(datasets["train" if k == 0 else "eval"], indices))
    return out
