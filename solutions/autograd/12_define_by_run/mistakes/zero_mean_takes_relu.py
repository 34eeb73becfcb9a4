"""Tests `x.mean() >= 0`: an input whose mean is exactly 0 takes the ReLU branch, where the
contract says ReLU only for a mean above 0.

Caught by: test_branchy_grad_both_branches
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
    if x.mean() >= 0:
        return torch.relu(z).sum()
    return torch.tanh(z).sum()
