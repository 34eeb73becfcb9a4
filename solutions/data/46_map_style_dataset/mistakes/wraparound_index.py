"""Supports negative indices with idx % len(self): ds[N] silently returns sample 0, so
`for sample in ds` never ends.

Caught by: test_negative_index_and_index_error
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
from torch import Tensor
from torch.utils.data import Dataset


class TabularDataset(Dataset):
    def __init__(self, X: np.ndarray, y: np.ndarray, transform: Callable[[Tensor], Tensor] | None = None) -> None:
        if len(X) != len(y):
            raise ValueError("X and y differ in length")
        self.X = torch.tensor(X, dtype=torch.float32)
        self.y = torch.tensor(y, dtype=torch.int64)
        self.transform = transform

    def __len__(self) -> int:
        return len(self.X)

    def __getitem__(self, idx: int) -> tuple[Tensor, Tensor]:
        idx = idx % len(self)
        x = self.X[idx]
        return (self.transform(x) if self.transform else x), self.y[idx]
