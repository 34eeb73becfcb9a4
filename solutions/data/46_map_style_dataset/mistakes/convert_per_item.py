"""Keeps the NumPy arrays and converts each sample when it is accessed: every epoch pays
torch.from_numpy (and a dtype cast) for every sample.

Caught by: test_no_conversion_per_item
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
        self.X, self.y, self.transform = X, y, transform

    def __len__(self) -> int:
        return len(self.X)

    def __getitem__(self, idx: int) -> tuple[Tensor, Tensor]:
        features = torch.from_numpy(self.X[idx]).float()
        label = torch.as_tensor(self.y[idx], dtype=torch.int64)
        if self.transform is not None:
            features = self.transform(features)
        return features, label
