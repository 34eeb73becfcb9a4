"""Calls .numpy() on the tensor where it is: right on the CPU, but a CUDA tensor raises
("can't convert cuda:0 device type tensor to numpy").

Caught by: test_moves_to_host_before_numpy, test_cuda_to_host
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
    arr = t.resolve_conj().resolve_neg().numpy()
    return arr.copy() if copy else arr
