from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def elementwise_derivative(f: Callable[[Tensor], Tensor], x: Tensor) -> Tensor:
    """df/dx at every element of x for an elementwise f, via autograd; x (its values, requires_grad flag, .grad) is left untouched; result is detached."""
    raise NotImplementedError


def accumulated_grad(x: Tensor, n_backward: int) -> Tensor:
    """On a fresh leaf copy of x, call backward of (x**2).sum() n_backward times (rebuilding the graph each time) without zeroing; return the .grad."""
    raise NotImplementedError


def gradient_descent_scalar(f: Callable[[Tensor], Tensor], x0: float, lr: float, steps: int) -> float:
    """Minimise scalar f by manual gradient descent using .backward(), updating under torch.no_grad() and zeroing .grad every step."""
    raise NotImplementedError
