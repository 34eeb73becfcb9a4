"""Accumulates in float32 on every device ("float32 is enough for a loss"): nothing overflows, but
on a CPU, which has float64, the sum loses precision the contract keeps: small differences round
away and many additions drift.

Caught by: test_float64_accumulation_on_cpu
"""
from __future__ import annotations

import torch
from torch import Tensor


class RunningMean:
    def __init__(self) -> None:
        self.reset()

    def update(self, batch_loss: Tensor, n: int) -> None:
        contribution = batch_loss.detach().to(torch.float32) * n
        self._total = contribution if self._total is None else self._total + contribution
        self._count += int(n)

    def compute(self) -> float:
        if self._count == 0:
            raise ValueError("RunningMean.compute() called before any update()")
        return (self._total / self._count).item()

    def reset(self) -> None:
        self._total = None
        self._count = 0
