from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler



class TabularDataset(Dataset):
    """X (N,F) and y (N,) NumPy arrays converted once in __init__; __getitem__(i) -> (float32 (F,), int64 0-dim), applying transform to features only."""

    def __init__(self, X: np.ndarray, y: np.ndarray, transform: Callable[[Tensor], Tensor] | None = None) -> None:
        raise NotImplementedError

    def __len__(self) -> int:
        raise NotImplementedError

    def __getitem__(self, idx: int) -> tuple[Tensor, Tensor]:
        raise NotImplementedError
