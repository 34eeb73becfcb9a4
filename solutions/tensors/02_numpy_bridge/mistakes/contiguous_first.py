"""Makes the array contiguous before wrapping it: np.ascontiguousarray silently copies a strided
view such as arr[:, ::2], so the tensor no longer shares memory with the array passed in.

Caught by: test_share_strided_view
"""
from __future__ import annotations

import numpy as np
import torch
from torch import Tensor


def share_from_numpy(arr: np.ndarray) -> Tensor:
    return torch.from_numpy(np.ascontiguousarray(arr))


def copy_from_numpy(arr: np.ndarray) -> Tensor:
    return torch.from_numpy(arr.copy())


def to_numpy(t: Tensor, copy: bool = False) -> np.ndarray:
    t = t.detach()
    if t.dtype == torch.bfloat16:
        t = t.to(torch.float32)
    arr = t.cpu().resolve_conj().resolve_neg().numpy()
    return arr.copy() if copy else arr
