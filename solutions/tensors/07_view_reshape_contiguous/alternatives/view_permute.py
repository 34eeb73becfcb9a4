"""A correct alternative: view + permute, unflatten/flatten."""
from __future__ import annotations


def split_heads(x, n_heads):
    b, t, hd = x.shape
    if hd % n_heads != 0:
        raise ValueError("last dimension not divisible by n_heads")
    return x.unflatten(-1, (n_heads, hd // n_heads)).permute(0, 2, 1, 3)


def merge_heads(x):
    return x.permute(0, 2, 1, 3).reshape(x.shape[0], x.shape[2], -1).contiguous()


def flatten_time_major(x):
    return x.permute(1, 0, 2).flatten(0, 1)
