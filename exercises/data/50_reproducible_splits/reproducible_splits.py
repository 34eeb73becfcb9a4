from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler



def split_indices(n: int, fractions: Sequence[float], seed: int) -> list[list[int]]:
    """Sizes floor(f*n) with the remainder added to split 0; indices identical to torch.utils.data.random_split(range(n), sizes, generator=torch.Generator().manual_seed(seed))."""
    raise NotImplementedError


def make_splits(dataset_factory: Callable[[Callable | None], Dataset], n: int, fractions: Sequence[float], seed: int,
                train_transform: Callable | None, eval_transform: Callable | None) -> list[Subset]:
    """Subsets over separate dataset instances: split 0 built with train_transform, the others with eval_transform."""
    raise NotImplementedError
