"""A correct alternative: breadth-first walk with a deque, leaves as a set of tensors, torch.autograd.backward twice."""
from __future__ import annotations

from collections import deque

import torch
from torch import Tensor


def _reachable(t: Tensor) -> set:
    if t.grad_fn is None:
        return set()
    seen = {t.grad_fn}
    queue = deque([t.grad_fn])
    while queue:
        node = queue.popleft()
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                queue.append(child)
    return seen


def backward_node_names(t: Tensor) -> set[str]:
    """type(node).__name__ of every autograd node reachable from t.grad_fn (incl. 'AccumulateGrad'); empty set if t.grad_fn is None."""
    return {type(node).__name__ for node in _reachable(t)}


def count_leaves(t: Tensor) -> int:
    """Number of distinct leaf tensors requiring grad that t depends on."""
    # tensors hash by identity, so the set holds each leaf once
    leaves = {node.variable for node in _reachable(t) if type(node).__name__ == "AccumulateGrad"}
    return len(leaves)


def grad_after_two_backwards(x: Tensor) -> Tensor:
    """On a leaf clone of x build y=(x**2).sum() ONCE, call backward twice on that same graph, return the accumulated grad."""
    leaf = x.clone().detach().requires_grad_()
    y = leaf.pow(2).sum()
    torch.autograd.backward(y, retain_graph=True)
    torch.autograd.backward(y)
    return leaf.grad
