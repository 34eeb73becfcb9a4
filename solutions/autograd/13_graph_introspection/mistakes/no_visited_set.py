"""Walks the graph recursively without remembering visited nodes. Names come out right (a set
absorbs duplicates), but a leaf reached along two paths is counted twice, and on a DAG where every
node feeds two later ones the number of paths, and so the running time, explodes.

Caught by: test_count_leaves_shared, test_shared_dag_perf
"""
from __future__ import annotations


def _walk(node, out):
    if node is None:
        return
    out.append(node)
    for child, _ in node.next_functions:
        _walk(child, out)


def backward_node_names(t):
    out = []
    _walk(t.grad_fn, out)
    return {type(n).__name__ for n in out}


def count_leaves(t):
    out = []
    _walk(t.grad_fn, out)
    return sum(1 for n in out if type(n).__name__ == "AccumulateGrad")


def grad_after_two_backwards(x):
    leaf = x.detach().clone().requires_grad_(True)
    y = (leaf ** 2).sum()
    y.backward(retain_graph=True)
    y.backward()
    return leaf.grad
