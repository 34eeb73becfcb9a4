from __future__ import annotations

from typing import Any

import torch
from torch import Tensor


def from_data(data: Any, dtype: torch.dtype | None = None, device: torch.device | str = "cpu") -> Tensor:
    """Return a new tensor on device holding the values of data (a Python scalar, a nested list or an ndarray). Without dtype, the result has the dtype PyTorch infers from the data."""
    raise NotImplementedError


def standard_tensors(n: int, device: torch.device | str = "cpu") -> dict[str, Tensor]:
    """Return the five tensors 'zeros', 'eye', 'arange', 'linspace' and 'randn' for size n, on device."""
    raise NotImplementedError
