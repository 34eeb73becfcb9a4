from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def split_heads(x: Tensor, n_heads: int) -> Tensor:
    """(B,T,H*D) -> (B,H,T,D); returns a view of x (no copy) when x is contiguous."""
    raise NotImplementedError


def merge_heads(x: Tensor) -> Tensor:
    """(B,H,T,D) -> contiguous (B,T,H*D); must accept the non-contiguous output of split_heads."""
    raise NotImplementedError


def flatten_time_major(x: Tensor) -> Tensor:
    """(B,T,F) -> (T*B,F) where row t*B + b is x[b, t]."""
    raise NotImplementedError
