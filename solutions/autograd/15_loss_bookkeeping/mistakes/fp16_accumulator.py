"""Accumulates in the loss's own dtype. Fine for float32 losses, but a float16 loss (AMP)
overflows the accumulator at 65504 and the mean becomes inf.

Caught by: test_fp16_accumulation_finite
"""
from __future__ import annotations


class RunningMean:
    def __init__(self):
        self.reset()

    def update(self, batch_loss, n):
        contribution = batch_loss.detach() * n
        self.total = contribution if self.total is None else self.total + contribution
        self.count += n

    def compute(self):
        if self.count == 0:
            raise ValueError("no batches")
        return float((self.total / self.count).item())

    def reset(self):
        self.total = None
        self.count = 0
