"""Computes both branches and selects one with torch.where (static-graph thinking): values and
gradients are the same, but both ReLU and tanh end up in every graph, which is exactly what a
define-by-run `if` avoids.

Caught by: test_real_python_branch
"""
from __future__ import annotations

import torch


def iterate_until_small(x, w, tol, max_iter=50):
    n = 0
    h = x
    while h.norm() >= tol and n < max_iter:
        h = torch.tanh(h @ w)
        n += 1
    return h.sum(), n


def branchy_loss(x, w):
    z = x @ w
    return torch.where(x.mean() > 0, torch.relu(z).sum(), torch.tanh(z).sum())
