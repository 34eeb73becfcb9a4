from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def binary_loss(logits: Tensor, targets: Tensor, pos_weight: Tensor | None = None) -> Tensor:
    """Mean BCE from raw logits; targets 0/1 of any dtype; (N,1) vs (N,) reconciled by squeezing a trailing singleton; other shape mismatches raise ValueError; pos_weight (K,) for (N,K)."""
    raise NotImplementedError


def multilabel_predict(logits: Tensor, threshold: float = 0.5) -> Tensor:
    """Bool (N,K): sigmoid(logits) >= threshold."""
    raise NotImplementedError
