"""Converts once with torch.from_numpy, then keeps Python lists of per-sample tensors: list
indexing gives negative indices and IndexError for free."""
from __future__ import annotations

import numpy as np
import torch
from torch.utils.data import Dataset


class TabularDataset(Dataset):
    def __init__(self, X, y, transform=None):
        X, y = np.asarray(X), np.asarray(y)
        if X.shape[0] != y.shape[0]:
            raise ValueError(f"{X.shape[0]} feature rows for {y.shape[0]} labels")
        self.rows = list(torch.from_numpy(X).to(torch.float32).unbind(0))
        self.targets = list(torch.from_numpy(y).long().unbind(0))
        self.transform = transform

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, idx):
        x = self.rows[idx]
        if self.transform:
            x = self.transform(x)
        return (x, self.targets[idx])
