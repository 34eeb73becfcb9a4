from __future__ import annotations
from collections.abc import Callable, Sequence
from typing import Any
import torch
from torch import Tensor


def peak_memory_bytes(fn: Callable[[], Any], device: torch.device | str = "cuda") -> int:
    """Return the most CUDA memory fn() needed on device beyond what was already allocated before it ran, or 0 without CUDA."""
    raise NotImplementedError


def free_and_report(container: dict[str, Tensor], keys: Sequence[str]) -> tuple[int, int]:
    """Remove keys from container, release what that frees, and return the allocated and reserved CUDA bytes afterwards."""
    raise NotImplementedError
