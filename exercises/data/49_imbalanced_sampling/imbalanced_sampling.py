from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler



def balanced_sampler(labels: Tensor, num_samples: int | None = None, generator: torch.Generator | None = None) -> WeightedRandomSampler:
    """Per-sample weights 1/count(label) (CPU, float64), replacement=True, num_samples default len(labels)."""
    raise NotImplementedError


def inverse_frequency_weights(labels: Tensor, num_classes: int) -> Tensor:
    """(C,) float32 weights proportional to 1/count, normalised to mean 1 over present classes; absent classes get 0."""
    raise NotImplementedError
