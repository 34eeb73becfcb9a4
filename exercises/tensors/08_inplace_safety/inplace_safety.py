from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def scale_shift_(x: Tensor, scale: float, shift: float) -> Tensor:
    """In place: x <- x*scale + shift; returns x itself; must NOT suppress autograd errors on leaves requiring grad."""
    raise NotImplementedError


def scale_shift(x: Tensor, scale: float, shift: float) -> Tensor:
    """Out-of-place version; never modifies x."""
    raise NotImplementedError


def sigmoid_then_scale(x: Tensor, scale: float) -> Tensor:
    """sigmoid(x) * scale, written so that backward() works (do not modify sigmoid's saved output in place)."""
    raise NotImplementedError
