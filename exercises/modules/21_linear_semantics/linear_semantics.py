from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def manual_linear(x: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
    """x (..., in), weight (out, in), bias (out,) or None -> x @ weight.T + bias, without nn.Linear/F.linear."""
    raise NotImplementedError


def linear_from_in_out(kernel: np.ndarray, bias: np.ndarray) -> nn.Linear:
    """nn.Linear (float32) such that layer(x) == x @ kernel + bias for a kernel stored as (in, out)."""
    raise NotImplementedError
