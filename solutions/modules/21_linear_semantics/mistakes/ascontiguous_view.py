"""Copies the kernel with `np.ascontiguousarray(kernel.T, np.float32)`, which copies only when it
has to: for a float32 kernel in Fortran order, `kernel.T` is already C-contiguous float32, so the
weight is `torch.from_numpy` of a view of the caller's array and changing the kernel afterwards
changes the layer. C-ordered kernels (and float64 ones) are copied and hide it.

Caught by: test_no_memory_shared
"""
from __future__ import annotations

import numpy as np
import torch
from torch import nn


def manual_linear(x, weight, bias):
    out = x @ weight.T
    return out if bias is None else out + bias


def linear_from_in_out(kernel, bias):
    layer = nn.Linear(kernel.shape[0], kernel.shape[1])
    layer.weight = nn.Parameter(torch.from_numpy(np.ascontiguousarray(kernel.T, np.float32)))
    layer.bias = nn.Parameter(torch.tensor(bias, dtype=torch.float32))
    return layer
