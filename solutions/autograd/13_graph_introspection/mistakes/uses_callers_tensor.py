"""Switches requires_grad on for the caller's own tensor instead of working on a detached clone: the
returned gradient is right, but the caller's x now requires grad and carries a .grad (and when x
already required grad, its .grad grows by 4x on every call).

Caught by: test_caller_x_untouched
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
    x.requires_grad_(True)
    y = (x ** 2).sum()
    y.backward(retain_graph=True)
    y.backward()
    return x.grad.clone()
