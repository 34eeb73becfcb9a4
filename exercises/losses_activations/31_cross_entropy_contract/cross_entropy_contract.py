from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def classification_loss(logits: Tensor, targets: Tensor, ignore_index: int = -100) -> Tensor:
    """Mean cross-entropy from RAW logits (N,C) or (N,C,*); targets are class indices (N,)/(N,*) of any integer dtype or integral floats, or float class probabilities shaped like logits."""
    raise NotImplementedError


def predict_proba(logits: Tensor) -> Tensor:
    """Class probabilities (softmax over the class dim 1) for reporting only; never fed into the loss."""
    raise NotImplementedError
