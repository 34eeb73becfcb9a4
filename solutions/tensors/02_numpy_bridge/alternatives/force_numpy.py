"""A correct alternative: numpy(force=True) for the host move; a copy through clone()."""
from __future__ import annotations

import numpy as np
import torch


def share_from_numpy(arr: np.ndarray):
    return torch.from_numpy(arr)


def copy_from_numpy(arr: np.ndarray):
    return torch.from_numpy(arr.copy(order="C")).clone()


def to_numpy(t, copy=False):
    if t.dtype == torch.bfloat16:
        t = t.float()
    arr = t.numpy(force=True)
    return arr.copy() if copy else arr
