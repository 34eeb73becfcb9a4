from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
from torch import Tensor
from torch.utils.data import Dataset


class TabularDataset(Dataset):
    """X (N,F) and y (N,) NumPy arrays converted once in __init__; __getitem__(i) -> (float32 (F,), int64 0-dim), applying transform to features only."""

    def __init__(self, X: np.ndarray, y: np.ndarray, transform: Callable[[Tensor], Tensor] | None = None) -> None:
        if len(X) != len(y):
            raise ValueError(f"X has {len(X)} samples but y has {len(y)}")
        self.features = torch.as_tensor(X, dtype=torch.float32)
        self.labels = torch.as_tensor(y, dtype=torch.int64)
        self.transform = transform

    def __len__(self) -> int:
        return self.labels.shape[0]

    def __getitem__(self, idx: int) -> tuple[Tensor, Tensor]:
        features, label = self.features[idx], self.labels[idx]
        if self.transform is not None:
            features = self.transform(features)
        return features, label
