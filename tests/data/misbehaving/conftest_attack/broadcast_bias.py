from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def add_feature_bias(x: Tensor, bias: Tensor) -> Tensor:
    """x (N,F) + bias (F,) broadcast over rows."""
    raise NotImplementedError


def add_sample_bias(x: Tensor, bias: Tensor) -> Tensor:
    """x (N,F) with bias[i] added to every element of row i; bias is (N,); correct even when N == F."""
    raise NotImplementedError


def pairwise_sq_dists(a: Tensor, b: Tensor) -> Tensor:
    """(N,D),(M,D) -> (N,M) squared Euclidean distances via broadcasting, using O(N*M) extra memory (not O(N*M*D)), clamped at 0."""
    raise NotImplementedError
