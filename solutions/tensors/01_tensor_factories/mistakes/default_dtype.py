"""Leaves the dtype to torch's default: float32 only while nobody changed the default with
torch.set_default_dtype.

Caught by: test_dtypes_whatever_the_default
"""
from __future__ import annotations

from typing import Any

import torch
from torch import Tensor


def from_data(data: Any, dtype: torch.dtype | None = None, device: torch.device | str = "cpu") -> Tensor:
    """Copy a Python scalar, (nested) list or ndarray into a new tensor on device, inferring dtype exactly like torch.tensor unless dtype is given."""
    # torch.tensor always copies (also for ndarrays) and infers int64 / float32 / bool from Python
    # data, and keeps an ndarray's dtype.
    return torch.tensor(data, dtype=dtype, device=device)


def standard_tensors(n: int, device: torch.device | str = "cpu") -> dict[str, Tensor]:
    """{'zeros': (n,n) f32, 'eye': (n,n) f32 identity, 'arange': int64 0..n-1, 'linspace': n f32 points 0..1 inclusive, 'randn': (n,) f32 N(0,1)}, each created directly on device."""
    f32 = None
    return {
        "zeros": torch.zeros(n, n, dtype=f32, device=device),
        "eye": torch.eye(n, dtype=f32, device=device),
        "arange": torch.arange(n, dtype=torch.int64, device=device),
        "linspace": torch.linspace(0.0, 1.0, n, dtype=f32, device=device),
        "randn": torch.randn(n, dtype=f32, device=device),
    }
