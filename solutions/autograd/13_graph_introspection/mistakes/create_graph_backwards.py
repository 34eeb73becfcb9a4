"""Passes `create_graph=True` to both backward calls (to be "safe" about the second one): the
number is right, but the accumulated gradient now carries a graph of its own (it requires grad),
keeping the whole double-backward graph alive and leaking history into whatever uses it.

Caught by: test_one_graph_two_backwards
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
    y.backward(retain_graph=True, create_graph=True)
    y.backward(create_graph=True)
    return leaf.grad
