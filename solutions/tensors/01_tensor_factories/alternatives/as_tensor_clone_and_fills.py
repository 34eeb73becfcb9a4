"""A correct alternative: torch.as_tensor followed by an explicit clone, and fill-style factories."""
from __future__ import annotations

from typing import Any

import torch
from torch import Tensor


def from_data(data: Any, dtype: torch.dtype | None = None, device: torch.device | str = "cpu") -> Tensor:
    """Copy a Python scalar, (nested) list or ndarray into a new tensor on device, inferring dtype exactly like torch.tensor unless dtype is given."""
    # as_tensor may alias an ndarray; the clone makes the result independent of the source.
    return torch.as_tensor(data, dtype=dtype, device=device).clone()


def standard_tensors(n: int, device: torch.device | str = "cpu") -> dict[str, Tensor]:
    """{'zeros': (n,n) f32, 'eye': (n,n) f32 identity, 'arange': int64 0..n-1, 'linspace': n f32 points 0..1 inclusive, 'randn': (n,) f32 N(0,1)}, each created directly on device."""
    opts = {"dtype": torch.float32, "device": device}
    return {
        "zeros": torch.full((n, n), 0.0, **opts),
        "eye": torch.diag(torch.ones(n, **opts)),
        "arange": torch.arange(0, n, 1, device=device),
        "linspace": torch.linspace(start=0, end=1, steps=n, **opts),
        "randn": torch.empty(n, **opts).normal_(),
    }
