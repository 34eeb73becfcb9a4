from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def softmax(x: Tensor, dim: int) -> Tensor:
    """Numerically stable softmax along dim."""
    raise NotImplementedError


def log_softmax(x: Tensor, dim: int) -> Tensor:
    """Numerically stable log-softmax along dim (finite for very negative logits)."""
    raise NotImplementedError


def gelu_tanh(x: Tensor) -> Tensor:
    """GELU, tanh approximation (== F.gelu(x, approximate='tanh'))."""
    raise NotImplementedError


def silu(x: Tensor) -> Tensor:
    """x * sigmoid(x)."""
    raise NotImplementedError


def leaky_relu(x: Tensor, negative_slope: float = 0.01) -> Tensor:
    """x if x >= 0 else negative_slope * x."""
    raise NotImplementedError
