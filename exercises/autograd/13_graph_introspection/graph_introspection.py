from __future__ import annotations

from torch import Tensor


def backward_node_names(t: Tensor) -> set[str]:
    """Return the class names of all autograd nodes reachable from t.grad_fn, the leaf-accumulating nodes included. Return an empty set when t has no grad_fn."""
    raise NotImplementedError


def count_leaves(t: Tensor) -> int:
    """Return the number of distinct leaf tensors requiring grad that t depends on."""
    raise NotImplementedError


def grad_after_two_backwards(x: Tensor) -> Tensor:
    """Return the gradient accumulated on a leaf copy of x by two backward passes through one graph of (copy ** 2).sum()."""
    raise NotImplementedError
