"""Reference for 36_custom_focal_loss: focal loss as a module with an `alpha` buffer, and a triplet margin loss."""
from __future__ import annotations

from typing import Literal

import torch
from torch import Tensor, nn


class FocalLoss(nn.Module):
    """Multi-class focal loss reduce(alpha[y] * (1 - p_y)**gamma * -log p_y) from raw logits; alpha (C,) optional, registered as buffer 'alpha'."""

    def __init__(self, gamma: float = 2.0, alpha: Tensor | None = None,
                 reduction: Literal["mean", "sum", "none"] = "mean") -> None:
        super().__init__()
        self.gamma = gamma
        self.reduction = reduction
        self.register_buffer("alpha", None if alpha is None else alpha.detach().clone())

    def forward(self, logits: Tensor, targets: Tensor) -> Tensor:
        targets = targets.long()
        log_pt = torch.log_softmax(logits, dim=1).gather(1, targets.unsqueeze(1)).squeeze(1)
        pt = log_pt.exp()
        loss = -((1.0 - pt) ** self.gamma) * log_pt
        if self.alpha is not None:
            loss = self.alpha.to(loss.dtype)[targets] * loss
        if self.reduction == "mean":
            return loss.mean()
        if self.reduction == "sum":
            return loss.sum()
        return loss


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0) -> Tensor:
    """mean(max(||a-p||_2 - ||a-n||_2 + margin, 0)); matches nn.TripletMarginLoss(margin, p=2) within 1e-4."""
    d_pos = (anchor - positive).norm(dim=1)
    d_neg = (anchor - negative).norm(dim=1)
    return torch.clamp(d_pos - d_neg + margin, min=0).mean()
