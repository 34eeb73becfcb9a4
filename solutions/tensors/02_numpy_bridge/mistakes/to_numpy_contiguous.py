"""Makes the tensor contiguous before `.numpy()`: for a contiguous tensor `.contiguous()` is the
tensor itself and the array shares its memory, but a transposed or strided view is copied, so
`to_numpy(t, copy=False)` no longer shares memory with such a `t` (NumPy holds strided arrays).

Caught by: test_to_numpy_shares_memory
"""
from __future__ import annotations

import numpy as np
import torch
from torch import Tensor


def share_from_numpy(arr: np.ndarray) -> Tensor:
    return torch.from_numpy(arr)


def copy_from_numpy(arr: np.ndarray) -> Tensor:
    return torch.from_numpy(arr.copy())


def to_numpy(t: Tensor, copy: bool = False) -> np.ndarray:
    t = t.detach()
    if t.dtype == torch.bfloat16:
        t = t.to(torch.float32)
    arr = t.cpu().contiguous().resolve_conj().resolve_neg().numpy()
    return arr.copy() if copy else arr
