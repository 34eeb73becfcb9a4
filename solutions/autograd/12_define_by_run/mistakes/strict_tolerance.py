"""Stops as soon as the norm is no longer strictly above tol (`while h.norm() > tol`): an input
whose norm equals tol is returned untouched with n == 0, where the contract's `norm >= tol` takes
one more step.

Caught by: test_loop_count
"""
from __future__ import annotations

import torch


def iterate_until_small(x, w, tol, max_iter=50):
    n = 0
    h = x
    while h.norm() > tol and n < max_iter:
        h = torch.tanh(h @ w)
        n += 1
    return h.sum(), n


def branchy_loss(x, w):
    z = x @ w
    if x.mean() > 0:
        return torch.relu(z).sum()
    return torch.tanh(z).sum()
