"""Splits through `x.data`, an old-tutorial habit for "just reshaping".

`.data` shares storage (so it is still a view, and the values are right) but is cut out of the
autograd graph: nothing that goes through split_heads gets a gradient.

Caught by: test_grad_through_split_merge
"""
from __future__ import annotations

from torch import Tensor


def split_heads(x: Tensor, n_heads: int) -> Tensor:
    b, t, hd = x.shape
    return x.data.view(b, t, n_heads, hd // n_heads).transpose(1, 2)


def merge_heads(x: Tensor) -> Tensor:
    b, h, t, d = x.shape
    return x.transpose(1, 2).contiguous().view(b, t, h * d)


def flatten_time_major(x: Tensor) -> Tensor:
    b, t, f = x.shape
    return x.transpose(0, 1).reshape(t * b, f)
