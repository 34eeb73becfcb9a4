"""Uses `torch.as_tensor`, which infers dtypes like torch.tensor but does not copy a CPU ndarray:
the tensor aliases the caller's array, so writing the array afterwards changes the tensor.

Caught by: test_ndarray_is_copied
"""
from __future__ import annotations

import torch


def from_data(data, dtype=None, device="cpu"):
    return torch.as_tensor(data, dtype=dtype, device=device)


def standard_tensors(n, device="cpu"):
    return {
        "zeros": torch.zeros(n, n, device=device),
        "eye": torch.eye(n, device=device),
        "arange": torch.arange(n, device=device),
        "linspace": torch.linspace(0, 1, n, device=device),
        "randn": torch.randn(n, device=device),
    }
