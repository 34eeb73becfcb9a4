"""Uses `torch.tensor(arr)` for the zero-copy direction. torch.tensor always copies, so writes to
the array never reach the tensor and the tensor wraps a different buffer.

Caught by: test_share_sees_writes
"""
from __future__ import annotations

import numpy as np
import torch


def share_from_numpy(arr):
    return torch.tensor(arr)


def copy_from_numpy(arr):
    return torch.tensor(np.ascontiguousarray(arr))


def to_numpy(t, copy=False):
    t = t.detach().cpu()
    if t.dtype == torch.bfloat16:
        t = t.float()
    return t.numpy().copy() if copy else t.numpy()
