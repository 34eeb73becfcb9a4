from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def pick_device(prefer: str | None = None) -> torch.device:
    """prefer if given and available (else RuntimeError); otherwise cuda, then mps, then cpu."""
    raise NotImplementedError


def move_batch(batch: Any, device: torch.device | str, non_blocking: bool = True) -> Any:
    """Recursively move tensors inside tensors/lists/tuples/namedtuples/dicts to device, preserving container types; non-tensors unchanged; tensors already there returned as-is."""
    raise NotImplementedError


def forward_on(model: nn.Module, x: Tensor, device: torch.device | str) -> Tensor:
    """Move model (params + buffers) and x to device, run model(x), return the output on device."""
    raise NotImplementedError
