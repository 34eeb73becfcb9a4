from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def iterate_until_small(x: Tensor, w: Tensor, tol: float, max_iter: int = 50) -> tuple[Tensor, int]:
    """n=0; h=x; while h.norm() >= tol and n < max_iter: h = tanh(h @ w); n += 1. Return (h.sum(), n)."""
    raise NotImplementedError


def branchy_loss(x: Tensor, w: Tensor) -> Tensor:
    """relu(x @ w).sum() if x.mean() > 0 else tanh(x @ w).sum(), chosen with a real Python `if`."""
    raise NotImplementedError
