"""A correct alternative: sums kept as float64 tensors from the start, count as a Python int."""
from __future__ import annotations

import torch


class RunningMean:
    def __init__(self):
        self._sum = None
        self._n = 0

    def update(self, batch_loss, n):
        value = batch_loss.detach().double() * n
        self._sum = value if self._sum is None else self._sum.add(value)
        self._n += n

    def compute(self):
        if not self._n:
            raise ValueError("no update() yet")
        return float(self._sum / self._n)

    def reset(self):
        self._sum, self._n = None, 0
