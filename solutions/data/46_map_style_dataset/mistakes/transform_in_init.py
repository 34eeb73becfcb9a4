"""Applies the transform to every row once in __init__ "to save time": a random augmentation is
then frozen, drawn once for the whole training run.

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
        features = torch.tensor(X, dtype=torch.float32)
        if transform is not None:
            features = torch.stack([transform(row) for row in features])
        self.X = features
        self.y = torch.tensor(y, dtype=torch.int64)

    def __len__(self) -> int:
        return len(self.X)

    def __getitem__(self, idx: int) -> tuple[Tensor, Tensor]:
        return self.X[idx], self.y[idx]
