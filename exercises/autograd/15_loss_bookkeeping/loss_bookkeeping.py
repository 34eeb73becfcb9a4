from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


class RunningMean:
    """Sample-weighted running mean of per-batch losses: never retains graphs, accumulates on-device in float64/float32, syncs only in compute()."""

    def update(self, batch_loss: Tensor, n: int) -> None:
        raise NotImplementedError

    def compute(self) -> float:
        raise NotImplementedError

    def reset(self) -> None:
        raise NotImplementedError
