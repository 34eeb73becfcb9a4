"""One (N, F+1) float tensor would lose int64 labels; this keeps two tensors and checks the
index by hand, normalising negative indices itself."""
from __future__ import annotations

import operator

import torch
from torch.utils.data import Dataset


class TabularDataset(Dataset):
    def __init__(self, X, y, transform=None):
        self._x = torch.tensor(X).float()
        self._y = torch.tensor(y).to(torch.long)
        if self._x.size(0) != self._y.numel():
            raise ValueError("X and y must hold the same number of samples")
        self._n = int(self._y.numel())
        self._transform = transform

    def __len__(self):
        return self._n

    def __getitem__(self, idx):
        i = operator.index(idx)
        if i < 0:
            i += self._n
        if i < 0 or i >= self._n:
            raise IndexError(f"index {idx} out of range for {self._n} samples")
        x = self._x[i]
        if self._transform is not None:
            x = self._transform(x)
        return x, self._y[i]
