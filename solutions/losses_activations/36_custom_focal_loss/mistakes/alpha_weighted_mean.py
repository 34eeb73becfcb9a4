"""Borrows CrossEntropyLoss's weighted mean: 'mean' divides by the sum of alpha[y] instead of N.

Caught by: test_gamma2_alpha_matches_reference, test_grad_matches_autograd_reference
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
        log_pt = torch.log_softmax(logits, dim=1).gather(1, targets.unsqueeze(1)).squeeze(1)
        loss = -((1.0 - log_pt.exp()) ** self.gamma) * log_pt
        weights = torch.ones_like(loss) if self.alpha is None else self.alpha.to(loss.dtype)[targets]
        loss = weights * loss
        if self.reduction == "mean":
            return loss.sum() / weights.sum()
        if self.reduction == "sum":
            return loss.sum()
        return loss


def triplet_margin_loss(anchor, positive, negative, margin=1.0):
    d_pos = (anchor - positive).norm(dim=1)
    d_neg = (anchor - negative).norm(dim=1)
    return torch.clamp(d_pos - d_neg + margin, min=0).mean()

