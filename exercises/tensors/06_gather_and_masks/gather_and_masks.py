from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def pick_target_scores(logits: Tensor, targets: Tensor) -> Tensor:
    """logits (N,C), targets (N,) int64 -> (N,) with out[i] = logits[i, targets[i]]."""
    raise NotImplementedError


def zero_above(x: Tensor, threshold: float) -> Tensor:
    """New tensor equal to x with entries > threshold set to 0; x itself is not modified."""
    raise NotImplementedError


def last_channel(x: Tensor) -> Tensor:
    """x (..., C) -> (...) VIEW of the last channel (shares storage with x), any rank."""
    raise NotImplementedError


def topk_mask(scores: Tensor, k: int) -> Tensor:
    """(N,C) -> bool (N,C), True at each row's k largest entries."""
    raise NotImplementedError
