"""Makes split_heads' output contiguous (`.permute(0, 2, 1, 3).contiguous()`), "to be safe".

Values and shapes are right, but every call copies the whole activation; the docstring asks for a
view of x. The copy is also needless for merge_heads, which must accept strided input anyway.

Caught by: test_split_is_view
"""
from __future__ import annotations

from torch import Tensor


def split_heads(x: Tensor, n_heads: int) -> Tensor:
    b, t, hd = x.shape
    return x.reshape(b, t, n_heads, hd // n_heads).permute(0, 2, 1, 3).contiguous()


def merge_heads(x: Tensor) -> Tensor:
    b, h, t, d = x.shape
    return x.permute(0, 2, 1, 3).contiguous().view(b, t, h * d)


def flatten_time_major(x: Tensor) -> Tensor:
    b, t, f = x.shape
    return x.permute(1, 0, 2).reshape(t * b, f)
