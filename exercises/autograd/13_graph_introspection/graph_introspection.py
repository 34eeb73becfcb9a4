from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def backward_node_names(t: Tensor) -> set[str]:
    """type(node).__name__ of every autograd node reachable from t.grad_fn (incl. 'AccumulateGrad'); empty set if t.grad_fn is None."""
    raise NotImplementedError


def count_leaves(t: Tensor) -> int:
    """Number of distinct leaf tensors requiring grad that t depends on."""
    raise NotImplementedError


def grad_after_two_backwards(x: Tensor) -> Tensor:
    """On a leaf clone of x build y=(x**2).sum() ONCE, call backward twice on that same graph, return the accumulated grad."""
    raise NotImplementedError
