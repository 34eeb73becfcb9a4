"""Reference solution for 12_define_by_run."""
from __future__ import annotations

import torch
from torch import Tensor


def iterate_until_small(x: Tensor, w: Tensor, tol: float, max_iter: int = 50) -> tuple[Tensor, int]:
    """n=0; h=x; while h.norm() >= tol and n < max_iter: h = tanh(h @ w); n += 1. Return (h.sum(), n)."""
    n = 0
    h = x
    # An ordinary Python loop: autograd records exactly the iterations that ran, so the graph (and
    # the gradient) differs from call to call.
    while h.norm() >= tol and n < max_iter:
        h = torch.tanh(h @ w)
        n += 1
    return h.sum(), n


def branchy_loss(x: Tensor, w: Tensor) -> Tensor:
    """relu(x @ w).sum() if x.mean() > 0 else tanh(x @ w).sum(), chosen with a real Python `if`."""
    z = x @ w
    if x.mean() > 0:
        return torch.relu(z).sum()
    return torch.tanh(z).sum()
