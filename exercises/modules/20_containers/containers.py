from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def named_mlp(sizes: list[int]) -> nn.Sequential:
    """Sequential of Linear/ReLU with children named fc1, act1, fc2, act2, ..., fcK (no activation after the last Linear)."""
    raise NotImplementedError


class MultiTaskHeads(nn.Module):
    """Shared trunk (Linear+ReLU) then one Linear head per task held in self.heads (nn.ModuleDict); forward(x, task) returns that task's logits."""

    def __init__(self, in_features: int, hidden: int, task_classes: dict[str, int]) -> None:
        raise NotImplementedError

    def forward(self, x: Tensor, task: str) -> Tensor:
        raise NotImplementedError


class TwoTower(nn.Module):
    """Two encoders (input proj + num_layers residual Linear+ReLU blocks in nn.ModuleList each); forward(a, b) -> cosine similarity (B,)."""

    def __init__(self, dim_a: int, dim_b: int, dim: int, num_layers: int) -> None:
        raise NotImplementedError

    def forward(self, a: Tensor, b: Tensor) -> Tensor:
        raise NotImplementedError
