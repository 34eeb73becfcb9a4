from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def evaluate(model: nn.Module, loader: Iterable[tuple[Tensor, Tensor]], loss_fn: Callable[[Tensor, Tensor], Tensor],
             device: torch.device | str) -> tuple[float, float]:
    """(sample-weighted mean loss, accuracy) in eval mode without autograd; restores the model's previous train/eval mode."""
    raise NotImplementedError


def predict(model: nn.Module, x: Tensor) -> Tensor:
    """int64 class indices argmax(dim=1) computed under eval mode + torch.inference_mode(); restores the previous mode."""
    raise NotImplementedError
