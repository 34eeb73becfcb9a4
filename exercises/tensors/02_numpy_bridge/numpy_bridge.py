from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def share_from_numpy(arr: np.ndarray) -> Tensor:
    """CPU tensor that shares memory with arr (zero-copy, dtype unchanged)."""
    raise NotImplementedError


def copy_from_numpy(arr: np.ndarray) -> Tensor:
    """Tensor owning an independent copy of arr with the same dtype; accepts any strides, including negative."""
    raise NotImplementedError


def to_numpy(t: Tensor, copy: bool = False) -> np.ndarray:
    """NumPy array of t's values for any device/requires_grad; bfloat16 becomes float32; copy=False shares memory for CPU tensors of NumPy dtypes."""
    raise NotImplementedError
