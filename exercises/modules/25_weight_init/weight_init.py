from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler




def init_weights_(model: nn.Module, scheme: Literal["xavier", "kaiming", "gpt2"]) -> nn.Module:
    """Linear/Conv weights: xavier_uniform | kaiming_normal(fan_in, relu) | normal(0, 0.02); their biases 0; Embedding ~ N(0, 0.02) with padding row kept 0; norm layers weight=1, bias=0. Returns model."""
    raise NotImplementedError


def default_linear_bound(fan_in: int) -> float:
    """b such that PyTorch's default nn.Linear weight init is U(-b, b)."""
    raise NotImplementedError
