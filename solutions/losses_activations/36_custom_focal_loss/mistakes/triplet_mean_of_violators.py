"""Averages the triplet loss over the triplets that violate the margin only (the "hard triplets"
mean), not over all N as nn.TripletMarginLoss does.

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
    hinge = torch.clamp((anchor - positive).norm(dim=1) - (anchor - negative).norm(dim=1) + margin, min=0)
    active = hinge > 0
    return hinge.sum() / active.sum().clamp(min=1)
