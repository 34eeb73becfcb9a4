from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def make_trainable(data: Any, device: torch.device | str = "cpu") -> Tensor:
    """float32 LEAF tensor on device with requires_grad=True holding data (int data allowed)."""
    raise NotImplementedError


def is_trainable_leaf(t: Tensor) -> bool:
    """True iff t is a leaf that will receive .grad on backward()."""
    raise NotImplementedError
