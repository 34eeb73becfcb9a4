from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


class MLP(nn.Module):
    """Hidden Linear layers in self.layers (nn.ModuleList of nn.Linear only), each followed by ReLU and self.dropout (nn.Dropout); output Linear in self.head."""

    def __init__(self, in_features: int, hidden: list[int], out_features: int, dropout: float = 0.0) -> None:
        raise NotImplementedError

    def forward(self, x: Tensor) -> Tensor:
        raise NotImplementedError
