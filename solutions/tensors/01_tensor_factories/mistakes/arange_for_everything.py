"""Builds the 1-D tensors with float `arange`: 'arange' comes out float32 (arange's dtype follows
its arguments), 'linspace' as `arange(n) / n` stops one step short of 1.0, and 'randn' is drawn
with NumPy (float64, and blind to torch.manual_seed).

Caught by: test_standard_dtypes, test_standard_values, test_randn_follows_seed, test_standard_tensors_example
"""
from __future__ import annotations

import numpy as np
import torch


def from_data(data, dtype=None, device="cpu"):
    return torch.tensor(data, dtype=dtype, device=device)


def standard_tensors(n, device="cpu"):
    return {
        "zeros": torch.zeros(n, n, device=device),
        "eye": torch.eye(n, device=device),
        "arange": torch.arange(0.0, n, device=device),
        "linspace": torch.arange(0.0, n, device=device) / n,
        "randn": torch.tensor(np.random.randn(n), device=device),
    }
