from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def count_parameters(model: nn.Module, trainable_only: bool = False) -> int:
    """Number of scalar parameters (buffers excluded)."""
    raise NotImplementedError


def save_weights(model: nn.Module, path: str | os.PathLike) -> None:
    """Save only model.state_dict() with every tensor on CPU (default zip format)."""
    raise NotImplementedError


def load_weights(model_factory: Callable[[], nn.Module], path: str | os.PathLike, device: torch.device | str = "cpu") -> nn.Module:
    """Build the architecture, strictly load with torch.load(weights_only=True), move to device, set eval mode, return it."""
    raise NotImplementedError
