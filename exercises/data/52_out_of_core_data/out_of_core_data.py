from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler



class MemmapDataset(Dataset):
    """Rows of a raw float32 file of shape (num_rows, num_features), read lazily via np.memmap opened on first access in each process; items are float32 (F,) tensors owning their memory."""

    def __init__(self, path: str, num_rows: int, num_features: int) -> None:
        raise NotImplementedError

    def __len__(self) -> int:
        raise NotImplementedError

    def __getitem__(self, idx: int) -> Tensor:
        raise NotImplementedError


class ShardedLineStream(IterableDataset):
    """Yields int64 0-dim tensors int(line) for every line of the given text files; with num_workers > 0 each line is yielded exactly once across workers."""

    def __init__(self, paths: list[str]) -> None:
        raise NotImplementedError

    def __iter__(self) -> Iterator[Tensor]:
        raise NotImplementedError
