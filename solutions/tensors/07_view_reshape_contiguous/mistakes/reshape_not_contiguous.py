"""Merges heads with `x.transpose(1, 2).reshape(B, T, -1)` and trusts reshape to return a contiguous tensor.

The values are always right, but reshape returns a view whenever the strides allow one: for a
time-major input (a permuted (T, B, H, D) buffer) the merged result is a strided view with
non-contiguous strides, which breaks the docstring's contract (and any `.view` downstream).

Caught by: test_merge_is_contiguous
"""
from __future__ import annotations

from torch import Tensor


def split_heads(x: Tensor, n_heads: int) -> Tensor:
    b, t, hd = x.shape
    return x.reshape(b, t, n_heads, hd // n_heads).transpose(1, 2)


def merge_heads(x: Tensor) -> Tensor:
    b, h, t, d = x.shape
    return x.transpose(1, 2).reshape(b, t, -1)


def flatten_time_major(x: Tensor) -> Tensor:
    b, t, f = x.shape
    return x.transpose(0, 1).reshape(t * b, f)
