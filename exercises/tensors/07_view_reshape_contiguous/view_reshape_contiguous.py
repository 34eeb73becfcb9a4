from __future__ import annotations

from torch import Tensor


def split_heads(x: Tensor, n_heads: int) -> Tensor:
    """Return x of shape (B, T, H*D) as (B, H, T, D), head h holding features h*D to (h+1)*D of each time step. For a contiguous x the result is a view of x."""
    raise NotImplementedError


def merge_heads(x: Tensor) -> Tensor:
    """Return the contiguous (B, T, H*D) inverse of split_heads, for a (B, H, T, D) input in any memory layout."""
    raise NotImplementedError


def flatten_time_major(x: Tensor) -> Tensor:
    """Return x of shape (B, T, F) as (T*B, F), with row t*B + b equal to x[b, t]."""
    raise NotImplementedError
