"""Copies only on the path it thought of: with `dtype=None` it clones, with a `dtype` it relies
on `.to(dtype)` to copy. But `.to` returns the tensor itself when nothing changes, so
`from_data(float64_array, dtype=torch.float64)` is a view of the array: writing the array
afterwards changes the result.

Caught by: test_ndarray_is_copied
"""
from __future__ import annotations

from typing import Any

import torch
from torch import Tensor


def from_data(data: Any, dtype: torch.dtype | None = None, device: torch.device | str = "cpu") -> Tensor:
    t = torch.as_tensor(data, device=device)
    return t.clone() if dtype is None else t.to(dtype)


def standard_tensors(n: int, device: torch.device | str = "cpu") -> dict[str, Tensor]:
    return {
        "zeros": torch.zeros(n, n, dtype=torch.float32, device=device),
        "eye": torch.eye(n, dtype=torch.float32, device=device),
        "arange": torch.arange(n, dtype=torch.int64, device=device),
        "linspace": torch.linspace(0.0, 1.0, n, dtype=torch.float32, device=device),
        "randn": torch.randn(n, dtype=torch.float32, device=device),
    }
