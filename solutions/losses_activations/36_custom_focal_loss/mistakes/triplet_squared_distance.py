"""Uses squared Euclidean distances in the triplet loss (a common variant), not the distances
nn.TripletMarginLoss(p=2) uses.

Caught by: test_triplet_matches_torch
"""
from __future__ import annotations

import torch
from torch import nn


class FocalLoss(nn.Module):
    def __init__(self, gamma=2.0, alpha=None, reduction="mean"):
        super().__init__()
        self.gamma = gamma
        self.reduction = reduction
        self.register_buffer("alpha", None if alpha is None else alpha.detach().clone())

    def forward(self, logits, targets):
        targets = targets.long()
        log_pt = torch.log_softmax(logits, dim=1).gather(1, targets.unsqueeze(1)).squeeze(1)
        loss = -((1.0 - log_pt.exp()) ** self.gamma) * log_pt
        if self.alpha is not None:
            loss = self.alpha.to(loss.dtype)[targets] * loss
        if self.reduction == "mean":
            return loss.mean()
        if self.reduction == "sum":
            return loss.sum()
        return loss


def triplet_margin_loss(anchor, positive, negative, margin=1.0):
    d_pos = ((anchor - positive) ** 2).sum(dim=1)
    d_neg = ((anchor - negative) ** 2).sum(dim=1)
    return torch.clamp(d_pos - d_neg + margin, min=0).mean()
