"""A match statement over the container kinds; copies into a tensor allocated on the target
device with copy_ (only when the tensor is elsewhere); availability checked one device at a time."""
from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def _same_place(t: Tensor, target: torch.device) -> bool:
    return t.device.type == target.type and (target.index is None or t.device.index == target.index)


def pick_device(prefer: str | None = None) -> torch.device:
    """prefer if given and available (else RuntimeError); otherwise cuda, then mps, then cpu."""
    has_cuda = torch.cuda.is_available()
    has_mps = torch.backends.mps.is_available()
    if prefer is None:
        return torch.device("cuda" if has_cuda else "mps" if has_mps else "cpu")
    device = torch.device(prefer)
    ok = {"cpu": True, "cuda": has_cuda, "mps": has_mps}.get(device.type, False)
    if not ok:
        raise RuntimeError(f"no {device.type} device here")
    return device


def move_batch(batch: Any, device: torch.device | str, non_blocking: bool = True) -> Any:
    """Recursively move tensors inside tensors/lists/tuples/namedtuples/dicts to device, preserving container types; non-tensors unchanged; tensors already there returned as-is."""
    target = torch.device(device)
    match batch:
        case torch.Tensor() if _same_place(batch, target):
            return batch
        case torch.Tensor():
            out = torch.empty_like(batch, device=target)
            return out.copy_(batch, non_blocking=non_blocking)
        case dict():
            return type(batch)({key: move_batch(value, target, non_blocking) for key, value in batch.items()})
        case tuple() if hasattr(type(batch), "_make"):
            return type(batch)._make(move_batch(value, target, non_blocking) for value in batch)
        case list() | tuple():
            return type(batch)([move_batch(value, target, non_blocking) for value in batch])
        case _:
            return batch


def forward_on(model: nn.Module, x: Tensor, device: torch.device | str) -> Tensor:
    """Move model (params + buffers) and x to device, run model(x), return the output on device."""
    target = torch.device(device)
    model.to(target)
    return model(move_batch(x, target))
