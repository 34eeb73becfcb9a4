from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def clip_grad_norm(parameters: Iterable[Tensor], max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False) -> Tensor:
    """Rescale grads in place so their joint norm <= max_norm (coef = max_norm/(total+1e-6) clamped to 1); return the pre-clip total norm as a 0-dim tensor."""
    raise NotImplementedError


def clip_grad_value(parameters: Iterable[Tensor], clip_value: float) -> None:
    """Clamp every grad element into [-clip_value, clip_value] in place."""
    raise NotImplementedError
