"""Runs the transform over the whole sample, label included (a normalising transform then turns
class 3 into some float).

Caught by: test_transform_on_features_only
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
        return len(self.y)

    def __getitem__(self, idx: int) -> tuple[Tensor, Tensor]:
        x, y = self.X[idx], self.y[idx]
        if self.transform is not None:
            x, y = self.transform(x), self.transform(y)
        return x, y
