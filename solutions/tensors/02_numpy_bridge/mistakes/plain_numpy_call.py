"""Converts with a bare `t.cpu().numpy()`: it raises RuntimeError for tensors that require grad
(it must be detached first) and TypeError for bfloat16, which NumPy cannot represent.

Caught by: test_to_numpy_requires_grad, test_bfloat16_to_float32
"""
from __future__ import annotations

import torch


def share_from_numpy(arr):
    return torch.from_numpy(arr)


def copy_from_numpy(arr):
    return torch.from_numpy(arr.copy())


def to_numpy(t, copy=False):
    arr = t.cpu().numpy()
    return arr.copy() if copy else arr
