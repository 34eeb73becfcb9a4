from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def batch_from_samples(samples: list[Tensor]) -> Tensor:
    """Stack K same-shape (C,H,W) samples into (K,C,H,W)."""
    raise NotImplementedError


def concat_batches(batches: list[Tensor]) -> Tensor:
    """Concatenate batches (B_i, *rest) into (sum B_i, *rest)."""
    raise NotImplementedError


def gram_matrix(x: Tensor) -> Tensor:
    """(B,N,D) -> (B,N,N) with out[b] = x[b] @ x[b].T."""
    raise NotImplementedError


def row_normalize(x: Tensor) -> Tensor:
    """(N,D) -> each row divided by its sum; rows summing to 0 stay all-zero (no NaN)."""
    raise NotImplementedError
