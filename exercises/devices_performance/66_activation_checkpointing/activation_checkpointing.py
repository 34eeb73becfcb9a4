from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler



class CheckpointedMLP(nn.Module):
    """self.blocks = nn.ModuleList of depth [Linear(w,w), GELU, Dropout(p)] blocks; in training with grad enabled and use_checkpoint, each block runs via torch.utils.checkpoint.checkpoint(..., use_reentrant=False)."""

    def __init__(self, width: int, depth: int, p: float = 0.1, use_checkpoint: bool = True) -> None:
        raise NotImplementedError

    def forward(self, x: Tensor) -> Tensor:
        raise NotImplementedError
