"""A correct alternative: view on contiguous inputs, swapaxes, movedim."""
from __future__ import annotations


def split_heads(x, n_heads):
    b, t, hd = x.shape
    if hd % n_heads:
        raise ValueError(f"{hd} is not divisible by {n_heads}")
    y = x.view(b, t, n_heads, hd // n_heads) if x.is_contiguous() else x.reshape(b, t, n_heads, hd // n_heads)
    return y.swapaxes(1, 2)


def merge_heads(x):
    b, h, t, d = x.shape
    return x.movedim(1, 2).contiguous().view(b, t, h * d)


def flatten_time_major(x):
    b, t, f = x.shape
    return x.swapaxes(0, 1).contiguous().view(t * b, f)
