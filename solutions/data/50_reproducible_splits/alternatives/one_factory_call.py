"""One untransformed dataset from the factory, wrapped twice (train and eval transforms), and the
split drawn with numpy's Generator seeded by seed (never the global RNGs)."""
from __future__ import annotations

import math

import numpy as np
from torch.utils.data import Dataset, Subset


class _Transformed(Dataset):
    def __init__(self, base, transform):
        self.base, self.transform = base, transform

    def __len__(self):
        return len(self.base)

    def __getitem__(self, i):
        x = self.base[i]
        return x if self.transform is None else self.transform(x)


def split_indices(n, fractions, seed):
    if any(f < 0 for f in fractions) or abs(math.fsum(fractions) - 1.0) > 1e-6:
        raise ValueError(f"fractions {tuple(fractions)} must be non-negative and sum to 1")
    sizes = [math.floor(f * n) for f in fractions]
    sizes[0] += n - sum(sizes)
    perm = np.random.default_rng(seed).permutation(n).tolist()
    out, start = [], 0
    for size in sizes:
        out.append(perm[start:start + size])
        start += size
    return out


def make_splits(dataset_factory, n, fractions, seed, train_transform, eval_transform):
    base = dataset_factory(None)
    train_ds, eval_ds = _Transformed(base, train_transform), _Transformed(base, eval_transform)
    first, *rest = split_indices(n, fractions, seed)
    return [Subset(train_ds, first)] + [Subset(eval_ds, part) for part in rest]
