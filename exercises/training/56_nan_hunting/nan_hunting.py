from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def first_nonfinite_module(model: nn.Module, x: Tensor) -> str | None:
    """Qualified name of the first leaf module (execution order) whose output has NaN/Inf on model(x); 'input' if x is non-finite; None if clean; runs without autograd; hooks removed."""
    raise NotImplementedError


def nonfinite_grads(model: nn.Module) -> list[str]:
    """Names of parameters whose .grad contains NaN/Inf (after backward)."""
    raise NotImplementedError


def backward_with_anomaly_detection(loss: Tensor) -> str | None:
    """loss.backward() under torch.autograd.detect_anomaly(); None on success, else the failing backward node name (e.g. 'SqrtBackward0') parsed from the error."""
    raise NotImplementedError
