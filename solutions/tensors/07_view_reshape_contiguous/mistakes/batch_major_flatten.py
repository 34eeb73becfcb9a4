"""Flattens with a plain `x.reshape(T*B, F)`.

The shape is right, but reshape reads the memory in order, so row b*T + t is x[b, t]
(batch-major); the time-major order needs the B and T axes swapped first. Only B == 1 passes.

Caught by: test_flatten_time_major
"""
from __future__ import annotations

from torch import Tensor


def split_heads(x: Tensor, n_heads: int) -> Tensor:
    b, t, hd = x.shape
    return x.reshape(b, t, n_heads, hd // n_heads).transpose(1, 2)


def merge_heads(x: Tensor) -> Tensor:
    b, h, t, d = x.shape
    return x.transpose(1, 2).contiguous().view(b, t, h * d)


def flatten_time_major(x: Tensor) -> Tensor:
    b, t, f = x.shape
    return x.reshape(t * b, f)
