"""Spreads ε over the C-1 wrong classes only (1-ε on the target, ε/(C-1) elsewhere), the
textbook variant; PyTorch gives every class ε/C, the target included.

Caught by: test_matches_torch
"""
from __future__ import annotations

import torch


def weighted_smoothed_ce(logits, targets, class_weights=None, smoothing=0.0):
    num_classes = logits.shape[1]
    log_probs = torch.log_softmax(logits, dim=1)
    targets = targets.long()
    weights = torch.ones(num_classes, dtype=logits.dtype, device=logits.device) if class_weights is None \
        else class_weights.to(device=logits.device, dtype=logits.dtype)
    soft = torch.full_like(log_probs, smoothing / (num_classes - 1))
    soft.scatter_(1, targets.unsqueeze(1), 1.0 - smoothing)
    per_sample = -(soft * weights * log_probs).sum(dim=1)
    return per_sample.sum() / weights[targets].sum()
