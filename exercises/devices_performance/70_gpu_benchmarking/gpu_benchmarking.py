from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def benchmark(fn: Callable[[], Any], warmup: int = 5, iters: int = 50, device: torch.device | str = "cpu") -> dict[str, float]:
    """Call fn warmup times, then time iters calls (CUDA: synchronize around the timed region or use CUDA events); return {'mean_ms', 'median_ms', 'min_ms'} per call."""
    raise NotImplementedError
