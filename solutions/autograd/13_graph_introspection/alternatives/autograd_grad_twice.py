"""A correct alternative: recursive traversal with a visited set; two passes of autograd.grad over one graph."""
from __future__ import annotations

import torch


def _walk(node, seen):
    if node is None or node in seen:
        return
    seen.add(node)
    for child, _ in node.next_functions:
        _walk(child, seen)


def backward_node_names(t):
    seen = set()
    _walk(t.grad_fn, seen)
    return {type(n).__name__ for n in seen}


def count_leaves(t):
    seen = set()
    _walk(t.grad_fn, seen)
    return len({id(n.variable) for n in seen if hasattr(n, "variable")})


def grad_after_two_backwards(x):
    leaf = x.detach().clone().requires_grad_(True)
    y = (leaf * leaf).sum()
    (g1,) = torch.autograd.grad(y, leaf, retain_graph=True)
    (g2,) = torch.autograd.grad(y, leaf)
    return g1 + g2
