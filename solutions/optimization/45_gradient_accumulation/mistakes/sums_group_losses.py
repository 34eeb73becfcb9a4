"""Adds the group's scaled losses up and calls backward once per group: the same gradient, but all
the group's graphs are alive at once, which is the memory accumulation is meant to save.

Caught by: test_step_count_and_order
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
    for start in range(0, len(micro_batches), accumulation_steps):
        group = micro_batches[start:start + accumulation_steps]          # the last group may be shorter
        total = sum(x.shape[0] for x, _ in group)                         # N_g: samples in the whole group
        group_loss = 0.0
        for x, y in group:
            loss = loss_fn(model(x), y)
            group_loss = group_loss + loss * (x.shape[0] / total)
            losses.append(loss.item())
        group_loss.backward()
        if max_norm is not None:
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)  # once, on the group's gradient
        optimizer.step()
        optimizer.zero_grad()
    return losses
