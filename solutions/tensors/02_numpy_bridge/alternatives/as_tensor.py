"""A correct alternative: torch.as_tensor (shares a CPU array of a supported dtype), torch.tensor copies."""
from __future__ import annotations

import numpy as np
import torch


def share_from_numpy(arr):
    return torch.as_tensor(arr)


def copy_from_numpy(arr):
    return torch.tensor(np.ascontiguousarray(arr))


def to_numpy(t, copy=False):
    t = t.detach().to("cpu")
    if t.dtype == torch.bfloat16:
        t = t.float()
    arr = t.resolve_conj().resolve_neg().numpy()
    return np.array(arr, copy=True) if copy else arr
