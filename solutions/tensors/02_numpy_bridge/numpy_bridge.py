"""Reference solution for 02_numpy_bridge."""
from __future__ import annotations

import numpy as np
import torch
from torch import Tensor


def share_from_numpy(arr: np.ndarray) -> Tensor:
    """CPU tensor that shares memory with arr (zero-copy, dtype unchanged)."""
    return torch.from_numpy(arr)


def copy_from_numpy(arr: np.ndarray) -> Tensor:
    """Tensor owning an independent copy of arr with the same dtype; accepts any strides, including negative."""
    # ndarray.copy() is C-contiguous (no negative strides) and belongs to nobody else; the tensor
    # keeps it alive.
    return torch.from_numpy(arr.copy())


def to_numpy(t: Tensor, copy: bool = False) -> np.ndarray:
    """NumPy array of t's values for any device/requires_grad; bfloat16 becomes float32; copy=False shares memory for CPU tensors of NumPy dtypes."""
    t = t.detach()
    if t.dtype == torch.bfloat16:  # NumPy has no bfloat16; float32 holds every bfloat16 exactly
        t = t.to(torch.float32)
    arr = t.cpu().resolve_conj().resolve_neg().numpy()
    return arr.copy() if copy else arr
