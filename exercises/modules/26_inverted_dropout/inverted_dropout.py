from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler




class InvertedDropout(nn.Module):
    """Train: zero each element with prob p and scale survivors by 1/(1-p); eval or p == 0: identity; p == 1: zeros; 0 <= p <= 1 else ValueError."""

    def __init__(self, p: float = 0.5) -> None:
        raise NotImplementedError

    def forward(self, x: Tensor) -> Tensor:
        raise NotImplementedError
