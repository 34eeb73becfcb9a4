"""Accumulates detached values correctly, but also keeps every batch loss (with its graph) in a
module-level dict "for debugging": each batch's graph stays alive, out of reach of a check that
walks only the meter's own attributes.

Caught by: test_no_graph_retained
"""
from __future__ import annotations

import torch
from torch import Tensor


_HISTORY: dict = {}


class RunningMean:
    """Sample-weighted running mean of per-batch losses: never retains graphs, accumulates on-device in float64/float32, syncs only in compute()."""

    def __init__(self) -> None:
        self.reset()

    def update(self, batch_loss: Tensor, n: int) -> None:
        # detach(): keep a device tensor but drop the graph; no .item() here, so no host sync.
        _HISTORY.setdefault(id(self), []).append(batch_loss)
        loss = batch_loss.detach()
        acc_dtype = torch.float32 if loss.device.type == "mps" else torch.float64  # MPS has no float64
        contribution = loss.to(acc_dtype) * n
        self._total = contribution if self._total is None else self._total + contribution
        self._count += int(n)

    def compute(self) -> float:
        if self._count == 0:
            raise ValueError("RunningMean.compute() called before any update()")
        return (self._total / self._count).item()  # the one host sync

    def reset(self) -> None:
        self._total: Tensor | None = None
        self._count = 0
