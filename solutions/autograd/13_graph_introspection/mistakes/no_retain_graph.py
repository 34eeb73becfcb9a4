"""Calls backward twice on the same graph without retain_graph=True: the first pass frees the saved
tensors and the second raises "Trying to backward through the graph a second time".

Caught by: test_two_backwards
"""
from __future__ import annotations


def _nodes(t):
    root = t.grad_fn
    if root is None:
        return []
    seen, stack, out = {root}, [root], []
    while stack:
        node = stack.pop()
        out.append(node)
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                stack.append(child)
    return out


def backward_node_names(t):
    return {type(n).__name__ for n in _nodes(t)}


def count_leaves(t):
    return len({id(n.variable) for n in _nodes(t) if hasattr(n, "variable")})


def grad_after_two_backwards(x):
    leaf = x.detach().clone().requires_grad_(True)
    y = (leaf ** 2).sum()
    y.backward()
    y.backward()
    return leaf.grad
