from __future__ import annotations

from collections.abc import Callable

import numpy as np
from torch import Tensor
from torch.utils.data import Dataset


class TabularDataset(Dataset):
    """A map-style dataset over NumPy features X of shape (N, F) and integer labels y of shape (N,). Item i is the pair (features, label) of sample i, ready for a classifier and its loss."""

    def __init__(self, X: np.ndarray, y: np.ndarray, transform: Callable[[Tensor], Tensor] | None = None) -> None:
        raise NotImplementedError

    def __len__(self) -> int:
        raise NotImplementedError

    def __getitem__(self, idx: int) -> tuple[Tensor, Tensor]:
        raise NotImplementedError
