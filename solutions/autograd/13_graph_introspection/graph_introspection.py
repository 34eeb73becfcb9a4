"""Reference solution for 13_graph_introspection."""
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
    """On a leaf clone of x build y=(x**2).sum() ONCE, call backward twice on that same graph, return the accumulated grad."""
    leaf = x.detach().clone().requires_grad_(True)
    y = (leaf ** 2).sum()
    y.backward(retain_graph=True)  # keep the saved tensors for the second pass
    y.backward()
    return leaf.grad
