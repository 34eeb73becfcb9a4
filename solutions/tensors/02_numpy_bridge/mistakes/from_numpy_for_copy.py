"""Uses `torch.from_numpy(arr)` for the copying direction as well. It shares the caller's buffer
(later writes to arr show up in the tensor) and rejects negative strides such as arr[::-1] with
a ValueError.

Caught by: test_copy_is_independent, test_copy_accepts_any_strides
"""
from __future__ import annotations

import torch


def share_from_numpy(arr):
    return torch.from_numpy(arr)


def copy_from_numpy(arr):
    return torch.from_numpy(arr)


def to_numpy(t, copy=False):
    t = t.detach().cpu()
    if t.dtype == torch.bfloat16:
        t = t.float()
    return t.numpy().copy() if copy else t.numpy()
