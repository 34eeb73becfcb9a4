from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def save_checkpoint(path: str | os.PathLike, model: nn.Module, optimizer: torch.optim.Optimizer, scheduler: Any | None,
                    epoch: int, extra: dict | None = None) -> None:
    """One file with model/optimizer/scheduler state_dicts, epoch, torch CPU RNG state (+ all CUDA RNG states if available) and extra; loadable with weights_only=True."""
    raise NotImplementedError


def load_checkpoint(path: str | os.PathLike, model: nn.Module, optimizer: torch.optim.Optimizer | None = None,
                    scheduler: Any | None = None, map_location: str | torch.device = "cpu") -> int:
    """Restore everything save_checkpoint stored (weights; optimizer/scheduler/RNG when given) and return the next epoch to run."""
    raise NotImplementedError
