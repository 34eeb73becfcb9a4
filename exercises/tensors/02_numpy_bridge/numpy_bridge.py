from __future__ import annotations

import numpy as np
from torch import Tensor


def share_from_numpy(arr: np.ndarray) -> Tensor:
    """Return a CPU tensor that is a view of arr's memory, with arr's dtype and shape."""
    raise NotImplementedError


def copy_from_numpy(arr: np.ndarray) -> Tensor:
    """Return a tensor with arr's dtype, shape and values that owns its own memory."""
    raise NotImplementedError


def to_numpy(t: Tensor, copy: bool = False) -> np.ndarray:
    """Return a NumPy array of the values of t, whatever its device and whether it requires grad. With copy=False the array shares memory with a CPU tensor of a NumPy dtype, and with copy=True it never does."""
    raise NotImplementedError
