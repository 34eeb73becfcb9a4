"""Writes the loop as "step, then test" (a do-while), so at least one tanh step always runs: an
input whose norm is already below tol comes back transformed with n == 1 instead of untouched
with n == 0.

Caught by: test_loop_count
"""
from __future__ import annotations

import torch


def iterate_until_small(x, w, tol, max_iter=50):
    n = 0
    h = x
    while True:
        h = torch.tanh(h @ w)
        n += 1
        if h.norm() < tol or n >= max_iter:
            break
    return h.sum(), n


def branchy_loss(x, w):
    z = x @ w
    if x.mean() > 0:
        return torch.relu(z).sum()
    return torch.tanh(z).sum()
