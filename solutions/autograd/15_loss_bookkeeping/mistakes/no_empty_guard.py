"""reset() only zeroes the sum and keeps the sample count, and compute() on an empty meter divides
0 by 0 and returns nan instead of raising ValueError.

Caught by: test_reset_and_empty
"""
from __future__ import annotations

import torch


class RunningMean:
    def __init__(self):
        self.total = None
        self.count = 0

    def update(self, batch_loss, n):
        contribution = batch_loss.detach().to(torch.float64) * n
        self.total = contribution if self.total is None else self.total + contribution
        self.count += n

    def compute(self):
        total = self.total if self.total is not None else torch.zeros((), dtype=torch.float64)
        return (total / self.count).item() if self.count else float("nan")

    def reset(self):
        if self.total is not None:
            self.total = torch.zeros_like(self.total)
