"""Converts with torch.from_numpy and casts only the features: int32 labels stay int32, which
cross_entropy refuses as class indices.

Caught by: test_item_and_batch_dtypes, test_transform_on_features_only
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
        self.X = torch.from_numpy(X).float()
        self.y = torch.from_numpy(y)
        self.transform = transform

    def __len__(self) -> int:
        return len(self.X)

    def __getitem__(self, idx: int) -> tuple[Tensor, Tensor]:
        x = self.X[idx]
        return (self.transform(x) if self.transform else x), self.y[idx]
