"""The loss as logsumexp minus the target's score, weighted by a 0/1 mask (the ignored targets
replaced by a valid class first), and the skip decided by isinf or isnan: the same contract by
another route."""
from __future__ import annotations

import torch
from torch import Tensor, nn


def masked_cross_entropy(logits: Tensor, targets: Tensor, ignore_index: int = -100) -> Tensor:
    keep = targets != ignore_index
    safe = torch.where(keep, targets, torch.zeros_like(targets))
    per_sample = torch.logsumexp(logits, dim=1) - logits.gather(1, safe.unsqueeze(1)).squeeze(1)
    weights = keep.to(logits.dtype)
    return (per_sample * weights).sum() / weights.sum().clamp(min=1.0)


def train_step(model: nn.Module, optimizer: torch.optim.Optimizer, x: Tensor, y: Tensor,
               max_norm: float = 1.0) -> float:
    optimizer.zero_grad(set_to_none=True)
    loss = masked_cross_entropy(model(x), y)
    if torch.isnan(loss) or torch.isinf(loss):
        return float(loss)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=max_norm, error_if_nonfinite=False)
    optimizer.step()
    return float(loss)
