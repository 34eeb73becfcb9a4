"""A correct alternative: the iteration written as recursion, the branch as a chosen function."""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor


def iterate_until_small(x: Tensor, w: Tensor, tol: float, max_iter: int = 50) -> tuple[Tensor, int]:
    """n=0; h=x; while h.norm() >= tol and n < max_iter: h = tanh(h @ w); n += 1. Return (h.sum(), n)."""
    if max_iter <= 0 or x.norm() < tol:
        return x.sum(), 0
    total, steps = iterate_until_small(torch.tanh(x @ w), w, tol, max_iter - 1)
    return total, steps + 1


def branchy_loss(x: Tensor, w: Tensor) -> Tensor:
    """relu(x @ w).sum() if x.mean() > 0 else tanh(x @ w).sum(), chosen with a real Python `if`."""
    activation = F.relu if bool(x.mean() > 0) else torch.tanh
    return activation(x @ w).sum()
