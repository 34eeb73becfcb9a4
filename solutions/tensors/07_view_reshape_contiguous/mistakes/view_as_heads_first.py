"""Splits with `x.view(B, H, T, D)`, as if the heads were the slowest-moving axis in memory.

The shape is right and it is a view, but it regroups the flat buffer: "head" 0 gets the first
T*D numbers of each batch element (whole time steps), not the first D features of every time step.
merge_heads undoes it with the matching plain reshape, so merge_heads(split_heads(x)) gives x back
bit for bit and a round-trip test alone would pass; the split values are wrong, and so is
merge_heads on any genuine (B, H, T, D) input.

Caught by: test_split_merge_values, test_merge_accepts_noncontiguous, test_split_heads_example
"""
from __future__ import annotations

from torch import Tensor


def split_heads(x: Tensor, n_heads: int) -> Tensor:
    b, t, hd = x.shape
    return x.view(b, n_heads, t, hd // n_heads)


def merge_heads(x: Tensor) -> Tensor:
    b, h, t, d = x.shape
    return x.reshape(b, t, h * d)


def flatten_time_major(x: Tensor) -> Tensor:
    b, t, f = x.shape
    return x.transpose(0, 1).reshape(t * b, f)
