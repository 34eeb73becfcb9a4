from __future__ import annotations

import torch
from torch import Tensor, nn


def masked_cross_entropy(logits: Tensor, targets: Tensor, ignore_index: int = -100) -> Tensor:
    """The mean cross-entropy over the samples whose target is not ignore_index, as a 0-d tensor."""
    probs = torch.softmax(logits, dim=1)
    keep = targets != ignore_index
    picked = probs[keep].gather(1, targets[keep].unsqueeze(1)).squeeze(1)
    return -torch.log(picked).sum() / keep.sum()


def train_step(model: nn.Module, optimizer: torch.optim.Optimizer, x: Tensor, y: Tensor,
               max_norm: float = 1.0) -> float:
    """One clipped optimizer step on the batch (x, y). Returns the batch's loss before the step as a Python float."""
    optimizer.zero_grad()
    loss = masked_cross_entropy(model(x), y)
    if torch.isnan(loss):
        return loss.item()
    loss.backward()
    optimizer.step()
    nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    return loss.item()
