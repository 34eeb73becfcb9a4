"""Uses the reentrant checkpoint (`use_reentrant=True`, the old default): with an input that does
not require grad, the parameters inside the checkpoints get no gradient.

Caught by: test_param_grads_without_input_grad
"""
from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler

from torch.utils.checkpoint import checkpoint


class CheckpointedMLP(nn.Module):
    """self.blocks = nn.ModuleList of depth [Linear(w,w), GELU, Dropout(p)] blocks; in training with grad enabled and use_checkpoint, each block runs via torch.utils.checkpoint.checkpoint(..., use_reentrant=False)."""

    def __init__(self, width: int, depth: int, p: float = 0.1, use_checkpoint: bool = True) -> None:
        super().__init__()
        self.use_checkpoint = use_checkpoint
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.Linear(width, width), nn.GELU(), nn.Dropout(p)) for _ in range(depth))

    def forward(self, x: Tensor) -> Tensor:
        recompute = self.use_checkpoint and self.training and torch.is_grad_enabled()
        for block in self.blocks:
            # use_reentrant=False: replays the RNG state (dropout masks) and gives parameter
            # grads even when x does not require grad
            x = checkpoint(block, x, use_reentrant=True) if recompute else block(x)
        return x
