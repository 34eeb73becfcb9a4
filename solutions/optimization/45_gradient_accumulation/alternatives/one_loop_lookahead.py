"""One loop over the micro-batches: each finds its group's sample count by looking ahead, steps
when it closes a group (or is the last micro-batch), clips with its own global 2-norm, and zeroes
the grads in place (model.zero_grad(set_to_none=False))."""
from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
from torch import Tensor, nn


def _clip(params, max_norm):
    grads = [p.grad for p in params if p.grad is not None]
    total = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in grads]))
    coef = torch.clamp(max_norm / (total + 1e-6), max=1.0)
    for g in grads:
        g.mul_(coef)


def train_accumulated(model: nn.Module, optimizer: torch.optim.Optimizer, loss_fn: Callable[[Tensor, Tensor], Tensor],
                      micro_batches: Sequence[tuple[Tensor, Tensor]], accumulation_steps: int, max_norm: float | None = None) -> list[float]:
    """One pass over micro_batches, stepping every accumulation_steps micro-batches and once for a trailing partial group; returns the unscaled per-micro-batch losses."""
    model.train()
    sizes = [x.size(0) for x, _ in micro_batches]
    losses = []
    for i, (x, y) in enumerate(micro_batches):
        first = (i // accumulation_steps) * accumulation_steps
        group_size = sum(sizes[first:first + accumulation_steps])
        loss = loss_fn(model(x), y)
        loss.mul(sizes[i] / group_size).backward()
        losses.append(loss.detach().item())
        if (i + 1) % accumulation_steps == 0 or i + 1 == len(micro_batches):
            if max_norm is not None:
                _clip(list(model.parameters()), max_norm)
            optimizer.step()
            model.zero_grad(set_to_none=False)
    return losses
