"""Steps only when (i + 1) % accumulation_steps == 0, the common one-loop form: a trailing partial
group is never stepped, and its gradient is left on the parameters.

Caught by: test_ragged_groups, test_step_count_and_order
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
from torch import Tensor, nn


def train_accumulated(model: nn.Module, optimizer: torch.optim.Optimizer, loss_fn: Callable[[Tensor, Tensor], Tensor],
                      micro_batches: Sequence[tuple[Tensor, Tensor]], accumulation_steps: int, max_norm: float | None = None) -> list[float]:
    """One pass over micro_batches, stepping every accumulation_steps micro-batches and once for a trailing partial group; returns the unscaled per-micro-batch losses."""
    model.train()
    losses = []
    optimizer.zero_grad()
    for i, (x, y) in enumerate(micro_batches):
        start = i - i % accumulation_steps
        total = sum(b.shape[0] for b, _ in micro_batches[start:start + accumulation_steps])
        loss = loss_fn(model(x), y)
        (loss * (x.shape[0] / total)).backward()
        losses.append(loss.item())
        if (i + 1) % accumulation_steps == 0:
            if max_norm is not None:
                torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
            optimizer.step()
            optimizer.zero_grad()
    return losses
