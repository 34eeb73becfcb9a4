"""Calls backward() inside the functions (to "prepare" the gradients), which writes .grad on the
caller's tensors as a side effect; the caller's own backward then adds to it. It also swaps the
branches (tanh for a positive mean).

Caught by: test_no_backward_inside, test_branchy_grad_both_branches
"""
from __future__ import annotations

import torch


def iterate_until_small(x, w, tol, max_iter=50):
    n = 0
    h = x
    while h.norm() >= tol and n < max_iter:
        h = torch.tanh(h @ w)
        n += 1
    out = h.sum()
    if out.requires_grad:
        out.backward(retain_graph=True)
    return out, n


def branchy_loss(x, w):
    z = x @ w
    out = torch.tanh(z).sum() if x.mean() > 0 else torch.relu(z).sum()
    if out.requires_grad:
        out.backward(retain_graph=True)
    return out
