"""Builds tensors from data with the legacy class constructor `torch.Tensor(data)`.

`torch.Tensor` is the float32 tensor type, not a factory: `[1, 2, 3]` comes back as float32, and a
bare int is read as a *shape*, so `torch.Tensor(3)` is an uninitialised tensor of shape (3,).

Caught by: test_inferred_dtype, test_scalar_is_0dim, test_no_legacy_constructors, test_list_of_ints_example
"""
from __future__ import annotations

import torch


def from_data(data, dtype=None, device="cpu"):
    out = torch.Tensor(data)
    return out.to(device=device, dtype=dtype) if dtype is not None else out.to(device)


def standard_tensors(n, device="cpu"):
    return {
        "zeros": torch.zeros(n, n, device=device),
        "eye": torch.eye(n, device=device),
        "arange": torch.arange(n, device=device),
        "linspace": torch.linspace(0, 1, n, device=device),
        "randn": torch.randn(n, device=device),
    }
