"""A correct alternative: to_numpy moves the tensor to the host only when it is not there already,
and copy_from_numpy copies through torch.tensor after making the array contiguous."""
from __future__ import annotations

import numpy as np
import torch


def share_from_numpy(arr):
    return torch.from_numpy(arr)


def copy_from_numpy(arr):
    return torch.tensor(np.ascontiguousarray(arr))


def to_numpy(t, copy=False):
    t = t.detach()
    if t.device.type != "cpu":
        t = t.cpu()
    if t.dtype == torch.bfloat16:
        t = t.float()
    arr = t.numpy()
    return arr.copy() if copy else arr
