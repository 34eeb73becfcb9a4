"""Runs the model once per sample, in a Python loop over the batch, and averages the per-sample
losses: the same loss and gradients, at the cost of one tiny forward and backward per sample (tens
of times slower than one batched forward). The other two bugs are fixed.

Caught by: test_one_forward_per_batch
"""
from __future__ import annotations

import math
from collections.abc import Iterable

import torch
import torch.nn.functional as F
from torch import Tensor, nn


def train(model: nn.Module, optimizer: torch.optim.Optimizer, batches: Iterable[tuple[Tensor, Tensor]],
          accumulate: int = 4, log_every: int = 10) -> list[float]:
    """One batched forward per batch, its backward at once (grads accumulate); the window total stays a tensor."""
    history = []
    window = 0.0
    for i, (x, y) in enumerate(batches, start=1):
        if (i - 1) % accumulate == 0:
            optimizer.zero_grad()
        loss = sum(F.cross_entropy(model(xi[None]), yi[None]) for xi, yi in zip(x, y)) / len(x)
        (loss / accumulate).backward()
        if i % accumulate == 0:
            optimizer.step()
        window = window + loss.detach()
        if i % log_every == 0:
            mean = float(window) / log_every
            if not math.isfinite(mean):
                raise FloatingPointError(f"the mean loss of the batches up to {i} is {mean}")
            history.append(mean)
            window = 0.0
    return history
