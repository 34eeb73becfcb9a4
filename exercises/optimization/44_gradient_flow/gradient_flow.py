from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def layer_grad_norms(model: nn.Module) -> dict[str, float]:
    """L2 norm of .grad for every parameter whose name ends in 'weight' and has a grad (call after backward)."""
    raise NotImplementedError


def make_deep_mlp(depth: int, width: int, activation: Literal["sigmoid", "relu"], residual: bool, init: Literal["default", "kaiming"]) -> nn.Module:
    """self.blocks = an nn.ModuleList of exactly depth nn.Linear(width, width) modules (parameter names blocks.{i}.weight/blocks.{i}.bias); forward applies the activation (and x + f(x) if residual); self.head = Linear(width, 1); init='kaiming' also zeroes biases, 'default' keeps PyTorch's init."""
    raise NotImplementedError


def activation_stds(model: nn.Module, x: Tensor) -> list[float]:
    """Std of each block's output on input x, collected with forward hooks that are removed afterwards."""
    raise NotImplementedError
