"""Averages the batch means without weighting them by batch size, so a small last batch counts as
much as a full one. Also returns the 0-dim tensor from compute() instead of a Python float.

Caught by: test_weighted_mean, test_compute_returns_python_float
"""
from __future__ import annotations

import torch


class RunningMean:
    def __init__(self):
        self.reset()

    def update(self, batch_loss, n):
        self.total = self.total + batch_loss.detach().to(torch.float64)
        self.batches += 1

    def compute(self):
        if self.batches == 0:
            raise ValueError("no batches")
        return self.total / self.batches

    def reset(self):
        self.total = torch.zeros((), dtype=torch.float64)
        self.batches = 0
