"""A correct alternative: a bounded for loop with break, linalg.norm, clamp for the ReLU branch."""
from __future__ import annotations

import torch
from torch import Tensor


def iterate_until_small(x: Tensor, w: Tensor, tol: float, max_iter: int = 50) -> tuple[Tensor, int]:
    """n=0; h=x; while h.norm() >= tol and n < max_iter: h = tanh(h @ w); n += 1. Return (h.sum(), n)."""
    h = x
    n = 0
    for _ in range(max_iter):
        if torch.linalg.norm(h) < tol:  # ord=None: the 2-norm of the flattened tensor (Frobenius)
            break
        h = torch.tanh(torch.matmul(h, w))
        n += 1
    return h.sum(), n


def branchy_loss(x: Tensor, w: Tensor) -> Tensor:
    """relu(x @ w).sum() if x.mean() > 0 else tanh(x @ w).sum(), chosen with a real Python `if`."""
    z = torch.matmul(x, w)
    if x.mean().item() > 0:
        return z.clamp(min=0).sum()
    return z.tanh().sum()
