"""Accumulates the loss tensor itself: `total = total + batch_loss * n` without detach(), so the
running total carries a grad_fn and keeps every batch's autograd graph (and activations) alive.
The numbers are right; the memory grows with every batch.

Caught by: test_no_graph_retained
"""
from __future__ import annotations

import torch


class RunningMean:
    def __init__(self):
        self.reset()

    def update(self, batch_loss, n):
        self.total = self.total + batch_loss.to(torch.float64) * n
        self.count += n

    def compute(self):
        if self.count == 0:
            raise ValueError("no batches")
        return (self.total / self.count).item()

    def reset(self):
        self.total = torch.zeros((), dtype=torch.float64)
        self.count = 0
