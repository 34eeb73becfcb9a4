from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def weighted_smoothed_ce(logits: Tensor, targets: Tensor, class_weights: Tensor | None = None, smoothing: float = 0.0) -> Tensor:
    """Reproduce nn.CrossEntropyLoss(weight=class_weights, label_smoothing=smoothing, reduction='mean') for (N,C) logits without calling it."""
    raise NotImplementedError
