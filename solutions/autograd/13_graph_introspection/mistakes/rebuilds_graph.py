"""Rebuilds y before the second backward (the usual way to dodge "Trying to backward through the
graph a second time"): the same 4x, but not two passes over one graph.

Caught by: test_one_graph_two_backwards
"""
from __future__ import annotations

from collections.abc import Iterator

from torch import Tensor


def _nodes(t: Tensor) -> Iterator:
    """Every autograd node reachable from t.grad_fn, each exactly once (iterative DFS)."""
    root = t.grad_fn
    if root is None:
        return
    seen = {root}
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        for child, _ in node.next_functions:
            # Inputs that do not require grad appear as None entries.
            if child is not None and child not in seen:
                seen.add(child)
                stack.append(child)


def backward_node_names(t: Tensor) -> set[str]:
    """type(node).__name__ of every autograd node reachable from t.grad_fn (incl. 'AccumulateGrad'); empty set if t.grad_fn is None."""
    return {type(node).__name__ for node in _nodes(t)}


def count_leaves(t: Tensor) -> int:
    """Number of distinct leaf tensors requiring grad that t depends on."""
    leaves = {}
    for node in _nodes(t):
        variable = getattr(node, "variable", None)  # only AccumulateGrad nodes hold a leaf
        if variable is not None:
            leaves[id(variable)] = variable          # keep it alive so ids stay unique
    return len(leaves)


def grad_after_two_backwards(x: Tensor) -> Tensor:
    leaf = x.detach().clone().requires_grad_(True)
    (leaf ** 2).sum().backward()
    (leaf ** 2).sum().backward()
    return leaf.grad
