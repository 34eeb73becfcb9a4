from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def train_accumulated(model: nn.Module, optimizer: torch.optim.Optimizer, loss_fn: Callable[[Tensor, Tensor], Tensor],
                      micro_batches: Sequence[tuple[Tensor, Tensor]], accumulation_steps: int, max_norm: float | None = None) -> list[float]:
    """One pass over micro_batches, stepping every accumulation_steps micro-batches and once for a trailing partial group; returns the unscaled per-micro-batch losses."""
    raise NotImplementedError
