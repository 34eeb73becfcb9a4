"""Detaches h at every step "to keep the graph small": the loop count and the value are right, but
the gradient only flows through the last iteration instead of through all n of them.

Caught by: test_grad_unrolled
"""
from __future__ import annotations

import torch


def iterate_until_small(x, w, tol, max_iter=50):
    n = 0
    h = x
    while h.norm() >= tol and n < max_iter:
        h = torch.tanh(h.detach() @ w)
        n += 1
    return h.sum(), n


def branchy_loss(x, w):
    z = x @ w
    if x.mean() > 0:
        return torch.relu(z).sum()
    return torch.tanh(z).sum()
