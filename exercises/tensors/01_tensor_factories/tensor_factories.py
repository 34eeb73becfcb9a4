from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def from_data(data: Any, dtype: torch.dtype | None = None, device: torch.device | str = "cpu") -> Tensor:
    """Copy a Python scalar, (nested) list or ndarray into a new tensor on device, inferring dtype exactly like torch.tensor unless dtype is given."""
    raise NotImplementedError


def standard_tensors(n: int, device: torch.device | str = "cpu") -> dict[str, Tensor]:
    """{'zeros': (n,n) f32, 'eye': (n,n) f32 identity, 'arange': int64 0..n-1, 'linspace': n f32 points 0..1 inclusive, 'randn': (n,) f32 N(0,1)}, each created directly on device."""
    raise NotImplementedError
