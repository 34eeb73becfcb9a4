from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler



def capture_activations(model: nn.Module, x: Tensor, layer_names: list[str]) -> dict[str, Tensor]:
    """Run model(x) once; return detached outputs of the named submodules; remove all hooks afterwards, even on exceptions; unknown names raise KeyError before running."""
    raise NotImplementedError


def activation_grad_norms(model: nn.Module, x: Tensor, loss_fn: Callable[[Tensor], Tensor], layer_names: list[str]) -> dict[str, float]:
    """L2 norm of dLoss/d(output) for each named submodule; parameter .grad fields are left exactly as found; hooks removed."""
    raise NotImplementedError
