from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


class PlateauLR:
    """Re-implements torch ReduceLROnPlateau(mode, factor, patience, threshold (rel), cooldown, min_lr) on an optimizer; step(metric) once per epoch."""
    def __init__(self, optimizer: torch.optim.Optimizer, mode: Literal["min", "max"] = "min", factor: float = 0.1, patience: int = 10,
                 threshold: float = 1e-4, cooldown: int = 0, min_lr: float = 0.0) -> None:
        raise NotImplementedError

    def step(self, metric: float | Tensor) -> None:
        raise NotImplementedError

    def state_dict(self) -> dict:
        raise NotImplementedError

    def load_state_dict(self, state: dict) -> None:
        raise NotImplementedError
