from __future__ import annotations

from torch import Tensor


def iterate_until_small(x: Tensor, w: Tensor, tol: float, max_iter: int = 50) -> tuple[Tensor, int]:
    """Return the element sum of h after n steps of h -> tanh(h @ w) from h = x, and n itself. Here n counts the steps taken until the Frobenius norm of h first falls below tol, at most max_iter."""
    raise NotImplementedError


def branchy_loss(x: Tensor, w: Tensor) -> Tensor:
    """Return relu(x @ w).sum() when x has a positive mean and tanh(x @ w).sum() otherwise. Only the branch taken appears in the result's autograd graph."""
    raise NotImplementedError
