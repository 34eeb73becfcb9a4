"""Divides the summed loss by the number of kept samples, which is zero for a batch whose targets are
all ignored (padding, unlabeled data): 0 / 0 is NaN, and the NaN reaches every parameter at the
next step. The other three bugs are fixed.

Caught by: test_all_ignored_batch_gives_zero
"""
from __future__ import annotations

import torch
from torch import Tensor, nn


def masked_cross_entropy(logits: Tensor, targets: Tensor, ignore_index: int = -100) -> Tensor:
    """log_softmax (no underflow); a count clamped to 1, so an all-ignored batch gives 0, not 0/0."""
    log_probs = torch.log_softmax(logits, dim=1)
    keep = targets != ignore_index
    picked = log_probs[keep].gather(1, targets[keep].unsqueeze(1)).squeeze(1)
    return -picked.sum() / keep.sum()


def train_step(model: nn.Module, optimizer: torch.optim.Optimizer, x: Tensor, y: Tensor,
               max_norm: float = 1.0) -> float:
    """Skip any non-finite loss (inf too); clip between backward and step."""
    optimizer.zero_grad()
    loss = masked_cross_entropy(model(x), y)
    if not torch.isfinite(loss):
        return loss.item()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    optimizer.step()
    return loss.item()
