from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


class RunningStandardizer(nn.Module):
    """y = (x - running_mean) / sqrt(running_var + eps) * weight + bias over the last dim; weight/bias learnable; running stats are buffers updated (momentum, unbiased var) BEFORE normalising, only in train mode; running_mean starts at 0 and running_var at 1; each train-mode batch updates new = (1 - momentum) * old + momentum * batch_stat, with the statistics taken over all leading dims (every dim but the last); eps is a non-persistent buffer."""

    def __init__(self, num_features: int, momentum: float = 0.1, eps: float = 1e-5) -> None:
        raise NotImplementedError

    def forward(self, x: Tensor) -> Tensor:
        raise NotImplementedError
