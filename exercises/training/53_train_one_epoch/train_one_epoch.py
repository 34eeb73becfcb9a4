from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def train_one_epoch(model: nn.Module, loader: Iterable[tuple[Tensor, Tensor]], optimizer: torch.optim.Optimizer,
                    loss_fn: Callable[[Tensor, Tensor], Tensor], device: torch.device | str) -> float:
    """model.train(); per batch: move to device, zero_grad, forward, loss, backward, step; return the sample-weighted mean loss as a float."""
    raise NotImplementedError
