"""move_batch through torch's pytree utilities (which know namedtuples, dicts, lists and tuples);
pick_device from a priority table; forward_on keeps what nn.Module.to returns."""
from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler
from torch.utils import _pytree as pytree

_CHECKS = {
    "cpu": lambda: True,
    "cuda": lambda: torch.cuda.is_available(),
    "mps": lambda: torch.backends.mps.is_available(),
}


def pick_device(prefer: str | None = None) -> torch.device:
    """prefer if given and available (else RuntimeError); otherwise cuda, then mps, then cpu."""
    if prefer:
        wanted = torch.device(prefer)
        check = _CHECKS.get(wanted.type)
        if check is None or not check():
            raise RuntimeError(f"device {prefer} is not available")
        return wanted
    return torch.device(next(kind for kind in ("cuda", "mps", "cpu") if _CHECKS[kind]()))


def move_batch(batch: Any, device: torch.device | str, non_blocking: bool = True) -> Any:
    """Recursively move tensors inside tensors/lists/tuples/namedtuples/dicts to device, preserving container types; non-tensors unchanged; tensors already there returned as-is."""
    def move(leaf: Any) -> Any:
        if isinstance(leaf, torch.Tensor):
            return leaf.to(device=device, non_blocking=non_blocking)
        return leaf
    return pytree.tree_map(move, batch)


def forward_on(model: nn.Module, x: Tensor, device: torch.device | str) -> Tensor:
    """Move model (params + buffers) and x to device, run model(x), return the output on device."""
    model = model.to(device)
    x = x.to(device)
    return model(x)
