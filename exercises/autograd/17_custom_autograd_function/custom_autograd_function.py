from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


class SignSTE(torch.autograd.Function):
    """forward: sign(x) in {-1,+1} (0 -> +1), same dtype; backward: grad_out * (|x| <= 1) (straight-through estimator)."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        raise NotImplementedError

    @staticmethod
    def backward(ctx: Any, grad_out: Tensor) -> Tensor:
        raise NotImplementedError


class StableLogSumExp(torch.autograd.Function):
    """forward: numerically stable logsumexp of x over dim (dim removed); backward: grad_out.unsqueeze(dim) * softmax(x, dim)."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int) -> Tensor:
        raise NotImplementedError

    @staticmethod
    def backward(ctx: Any, grad_out: Tensor) -> tuple[Tensor, None]:
        raise NotImplementedError
