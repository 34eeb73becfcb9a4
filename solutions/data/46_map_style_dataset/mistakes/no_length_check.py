"""Trusts that X and y line up: a y with one label missing is only found (as an IndexError, or
a silently shorter dataset) deep inside an epoch.

Caught by: test_len_and_length_mismatch
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
from torch import Tensor
from torch.utils.data import Dataset


class TabularDataset(Dataset):
    def __init__(self, X: np.ndarray, y: np.ndarray, transform: Callable[[Tensor], Tensor] | None = None) -> None:
        self.X = torch.tensor(X, dtype=torch.float32)
        self.y = torch.tensor(y, dtype=torch.int64)
        self.transform = transform

    def __len__(self) -> int:
        return min(len(self.X), len(self.y))

    def __getitem__(self, idx: int) -> tuple[Tensor, Tensor]:
        x = self.X[idx]
        return (self.transform(x) if self.transform else x), self.y[idx]
