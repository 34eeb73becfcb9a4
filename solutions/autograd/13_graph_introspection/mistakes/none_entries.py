"""Treats every entry of next_functions as a node: inputs that do not require grad show up as
None entries, so 'NoneType' lands in the names, and a tensor with no grad_fn gives {'NoneType'}
instead of the empty set.

Caught by: test_node_names, test_no_graph_empty
"""
from __future__ import annotations


def backward_node_names(t):
    names, seen, stack = set(), set(), [t.grad_fn]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        names.add(type(node).__name__)
        stack.extend(child for child, _ in getattr(node, "next_functions", ()))
    return names


def count_leaves(t):
    if t.grad_fn is None:
        return 0
    seen, stack, leaves = {t.grad_fn}, [t.grad_fn], set()
    while stack:
        node = stack.pop()
        if hasattr(node, "variable"):
            leaves.add(id(node.variable))
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                stack.append(child)
    return len(leaves)


def grad_after_two_backwards(x):
    leaf = x.detach().clone().requires_grad_(True)
    y = (leaf ** 2).sum()
    y.backward(retain_graph=True)
    y.backward()
    return leaf.grad
