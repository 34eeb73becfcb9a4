"""Merges heads with `x.transpose(1, 2).view(B, T, H*D)`.

It happens to work on split_heads' own output (transposing it back restores a contiguous layout),
which is the only input most people try. On a contiguous (B, H, T, D) tensor such as `attn @ v`,
or any other layout, H and D are no longer adjacent in memory after the transpose and `.view`
raises "view size is not compatible with input tensor's size and stride".

Caught by: test_merge_accepts_noncontiguous
"""
from __future__ import annotations

from torch import Tensor


def split_heads(x: Tensor, n_heads: int) -> Tensor:
    b, t, hd = x.shape
    return x.view(b, t, n_heads, hd // n_heads).transpose(1, 2)


def merge_heads(x: Tensor) -> Tensor:
    b, h, t, d = x.shape
    return x.transpose(1, 2).view(b, t, h * d)


def flatten_time_major(x: Tensor) -> Tensor:
    b, t, f = x.shape
    return x.transpose(0, 1).reshape(t * b, f)
