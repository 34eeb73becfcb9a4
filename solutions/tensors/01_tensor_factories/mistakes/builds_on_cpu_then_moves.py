"""Creates every tensor on the CPU and then calls `.to(device)`: the values are right, but each
tensor is allocated twice and copied host-to-device instead of being created where it is used.

Caught by: test_created_directly_on_meta, test_created_directly_on_cuda
"""
from __future__ import annotations

import torch


def from_data(data, dtype=None, device="cpu"):
    return torch.tensor(data, dtype=dtype, device=device)


def standard_tensors(n, device="cpu"):
    out = {
        "zeros": torch.zeros(n, n),
        "eye": torch.eye(n),
        "arange": torch.arange(n),
        "linspace": torch.linspace(0, 1, n),
        "randn": torch.randn(n),
    }
    return {key: value.to(device) for key, value in out.items()}
