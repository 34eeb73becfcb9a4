"""Makes `copy=True` the default of `to_numpy`, the "safe" choice: `to_numpy(t)` no longer
shares memory with a CPU tensor, which the signature's `copy: bool = False` promises.

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


def to_numpy(t: Tensor, copy: bool = True) -> np.ndarray:
    t = t.detach()
    if t.dtype == torch.bfloat16:
        t = t.to(torch.float32)
    arr = t.cpu().resolve_conj().resolve_neg().numpy()
    return arr.copy() if copy else arr
