"""Accumulates sum-reduced losses (loss_i * n_i) and divides the accumulated grads by the group's
sample count N_g just before clipping and stepping; clears grads by setting them to None."""
from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
from torch import Tensor, nn


def train_accumulated(model: nn.Module, optimizer: torch.optim.Optimizer, loss_fn: Callable[[Tensor, Tensor], Tensor],
                      micro_batches: Sequence[tuple[Tensor, Tensor]], accumulation_steps: int, max_norm: float | None = None) -> list[float]:
    """One pass over micro_batches, stepping every accumulation_steps micro-batches and once for a trailing partial group; returns the unscaled per-micro-batch losses."""
    model.train(True)
    params = [p for p in model.parameters() if p.requires_grad]
    out: list[float] = []
    n = len(micro_batches)
    bounds = [(s, min(s + accumulation_steps, n)) for s in range(0, n, accumulation_steps)]
    for lo, hi in bounds:
        seen = 0
        for i in range(lo, hi):
            x, y = micro_batches[i]
            value = loss_fn(model(x), y)
            (value * len(x)).backward()
            seen += len(x)
            out.append(float(value))
        with torch.no_grad():
            for p in params:
                if p.grad is not None:
                    p.grad.div_(seen)
        if max_norm is not None:
            torch.nn.utils.clip_grad_norm_(params, max_norm=max_norm)
        optimizer.step()
        for p in params:
            p.grad = None
    return out
