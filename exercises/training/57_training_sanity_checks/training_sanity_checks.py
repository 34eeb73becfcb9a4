from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def overfit_one_batch(model: nn.Module, x: Tensor, y: Tensor, loss_fn: Callable[[Tensor, Tensor], Tensor],
                      steps: int = 300, lr: float = 1e-2) -> list[float]:
    """Train with Adam on one fixed batch in train mode; return the loss (float) at every step."""
    raise NotImplementedError


def unused_parameters(model: nn.Module, *inputs: Tensor) -> list[str]:
    """Names of trainable params that receive no gradient from model(*inputs).float().sum(); every param's .grad is left exactly as found."""
    raise NotImplementedError
