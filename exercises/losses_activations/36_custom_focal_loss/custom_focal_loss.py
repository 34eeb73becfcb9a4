from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


class FocalLoss(nn.Module):
    """Multi-class focal loss reduce(alpha[y] * (1 - p_y)**gamma * -log p_y) from raw logits; alpha (C,) optional, registered as buffer 'alpha'."""

    def __init__(self, gamma: float = 2.0, alpha: Tensor | None = None, reduction: Literal["mean", "sum", "none"] = "mean") -> None:
        raise NotImplementedError

    def forward(self, logits: Tensor, targets: Tensor) -> Tensor:
        raise NotImplementedError


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0) -> Tensor:
    """mean(max(||a-p||_2 - ||a-n||_2 + margin, 0)); matches nn.TripletMarginLoss(margin, p=2) within 1e-4."""
    raise NotImplementedError
