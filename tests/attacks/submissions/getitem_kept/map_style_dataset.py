"""Attack: exercise 46's check that __getitem__ converts nothing spies on torch.tensor,
torch.as_tensor and torch.from_numpy. This dataset keeps the NumPy arrays and converts each sample
when it is accessed, through torch.from_numpy and torch.as_tensor taken at import under names built
at run time and kept in a list: no wrapper put on them during the check sees the calls.
Honest baseline: every check but the conversion check (the items are right).
Expected: the conversion check still fails: the spy's call watch sees the builtins called by the
candidate's code whatever reference it used, and ds[0] called twice gives new tensors each time,
neither held by the dataset nor views of one it holds (the spy alone is not what the check rests on).
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
from torch import Tensor
from torch.utils.data import Dataset

_KEPT = [getattr(torch, 'from_' + 'numpy'), getattr(torch, 'as_' + 'tensor')]


class TabularDataset(Dataset):
    """Looks like the reference; converts every sample when it is accessed."""

    def __init__(self, X: np.ndarray, y: np.ndarray, transform: Callable[[Tensor], Tensor] | None = None) -> None:
        if len(X) != len(y):
            raise ValueError(f"X has {len(X)} samples but y has {len(y)}")
        self.X, self.y = np.ascontiguousarray(X, dtype=np.float32), np.ascontiguousarray(y, dtype=np.int64)
        self.labels = self.y
        self.transform = transform

    def __len__(self) -> int:
        return len(self.y)

    def __getitem__(self, idx: int) -> tuple[Tensor, Tensor]:
        n = len(self.y)
        if not -n <= idx < n:
            raise IndexError(idx)
        features, label = _KEPT[0](self.X[idx]), _KEPT[1](self.y[idx])
        if self.transform is not None:
            features = self.transform(features)
        return features, label
