"""A correct alternative: ndarrays copied through NumPy, everything else through torch.tensor."""
from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import Tensor


def from_data(data: Any, dtype: torch.dtype | None = None, device: torch.device | str = "cpu") -> Tensor:
    """Copy a Python scalar, (nested) list or ndarray into a new tensor on device, inferring dtype exactly like torch.tensor unless dtype is given."""
    if isinstance(data, np.ndarray):
        # from_numpy shares memory, so hand it a private copy; an ndarray keeps its own dtype.
        out = torch.from_numpy(data.copy())
        return out.to(device=device) if dtype is None else out.to(device=device, dtype=dtype)
    out = torch.tensor(data, device=device)
    return out if dtype is None else out.to(dtype)


def standard_tensors(n: int, device: torch.device | str = "cpu") -> dict[str, Tensor]:
    """{'zeros': (n,n) f32, 'eye': (n,n) f32 identity, 'arange': int64 0..n-1, 'linspace': n f32 points 0..1 inclusive, 'randn': (n,) f32 N(0,1)}, each created directly on device."""
    zeros = torch.zeros((n, n), dtype=torch.float32, device=device)
    eye = torch.zeros_like(zeros)
    eye.fill_diagonal_(1.0)
    return {
        "zeros": zeros,
        "eye": eye,
        "arange": torch.arange(n, device=device),
        "linspace": torch.linspace(0.0, 1.0, n, device=device, dtype=torch.float32),
        "randn": torch.normal(0.0, 1.0, size=(n,), dtype=torch.float32, device=device),
    }
