"""Returns `torch.device(prefer)` without asking whether that device exists: on a CPU-only
machine `pick_device("cuda")` hands back a device the next `.to` fails on.

Caught by: test_pick_device
"""
from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def _available(kind: str) -> bool:
    if kind == "cuda":
        return torch.cuda.is_available()
    if kind == "mps":
        return torch.backends.mps.is_available()
    return kind == "cpu"


def pick_device(prefer: str | None = None) -> torch.device:
    """prefer if given and available (else RuntimeError); otherwise cuda, then mps, then cpu."""
    if prefer is not None:
        device = torch.device(prefer)
        return device
    for kind in ("cuda", "mps"):
        if _available(kind):
            return torch.device(kind)
    return torch.device("cpu")


def move_batch(batch: Any, device: torch.device | str, non_blocking: bool = True) -> Any:
    """Recursively move tensors inside tensors/lists/tuples/namedtuples/dicts to device, preserving container types; non-tensors unchanged; tensors already there returned as-is."""
    if isinstance(batch, torch.Tensor):
        return batch.to(device, non_blocking=non_blocking)  # the same tensor when already there
    if isinstance(batch, dict):
        return type(batch)((k, move_batch(v, device, non_blocking)) for k, v in batch.items())
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):  # a namedtuple takes its fields as arguments
        return type(batch)(*(move_batch(v, device, non_blocking) for v in batch))
    if isinstance(batch, (list, tuple)):
        return type(batch)(move_batch(v, device, non_blocking) for v in batch)
    return batch


def forward_on(model: nn.Module, x: Tensor, device: torch.device | str) -> Tensor:
    """Move model (params + buffers) and x to device, run model(x), return the output on device."""
    model.to(device)
    return model(x.to(device))
