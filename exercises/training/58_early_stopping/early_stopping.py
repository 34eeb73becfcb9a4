from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


class EarlyStopping:
    """step(metric, model) -> True when training should stop (patience consecutive non-improvements; an improvement means strictly better than the best score by more than min_delta); keeps a CPU deep copy of the best state_dict."""
    best_score: float | None
    best_epoch: int | None

    def __init__(self, patience: int = 5, min_delta: float = 0.0, mode: Literal["min", "max"] = "min") -> None:
        raise NotImplementedError

    def step(self, metric: float, model: nn.Module) -> bool:
        raise NotImplementedError

    def restore_best(self, model: nn.Module) -> None:
        raise NotImplementedError
