"""Alternative: log-probabilities as logits - logsumexp, the true class picked with a one-hot mask,
the triplet loss through torch.linalg.vector_norm."""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class FocalLoss(nn.Module):
    def __init__(self, gamma: float = 2.0, alpha=None, reduction: str = "mean"):
        super().__init__()
        self.gamma = gamma
        self.reduction = reduction
        self.register_buffer("alpha", alpha.detach().clone() if alpha is not None else None, persistent=True)

    def forward(self, logits, targets):
        log_probs = logits - torch.logsumexp(logits, dim=-1, keepdim=True)
        mask = F.one_hot(targets, logits.shape[-1]).to(torch.bool)
        log_pt = torch.where(mask, log_probs, torch.zeros_like(log_probs)).sum(dim=-1)
        weight = (-torch.expm1(log_pt)) ** self.gamma
        if self.alpha is not None:
            weight = weight * (mask.to(logits.dtype) * self.alpha.to(logits.dtype)).sum(dim=-1)
        per_sample = -weight * log_pt
        reducers = {"mean": torch.mean, "sum": torch.sum}
        return reducers[self.reduction](per_sample) if self.reduction in reducers else per_sample


def triplet_margin_loss(anchor, positive, negative, margin=1.0):
    gap = torch.linalg.vector_norm(anchor - positive, dim=-1) - torch.linalg.vector_norm(anchor - negative, dim=-1)
    return torch.clamp_min(gap + margin, 0.0).mean()
