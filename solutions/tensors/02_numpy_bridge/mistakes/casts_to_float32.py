"""Because "models want float32", both conversions call `.float()`. For NumPy's default float64 that
cast is a copy, so the tensor no longer shares memory, and integer and bool arrays lose their
dtype.

Caught by: test_share_keeps_dtype, test_share_sees_writes, test_copy_preserves_dtype, test_copy_example, test_share_example
"""
from __future__ import annotations

import torch


def share_from_numpy(arr):
    return torch.from_numpy(arr).float()


def copy_from_numpy(arr):
    return torch.from_numpy(arr.copy()).float()


def to_numpy(t, copy=False):
    t = t.detach().cpu()
    if t.dtype == torch.bfloat16:
        t = t.float()
    return t.numpy().copy() if copy else t.numpy()
