"""A hand-written loss that zeroes the ignored positions but still divides by the number of all
positions: every ignored label pulls the mean towards 0.

Caught by: test_ignore_index
"""
from __future__ import annotations

import torch
import torch.nn.functional as F


def classification_loss(logits, targets, ignore_index=-100):
    logp = F.log_softmax(logits, dim=1)
    if targets.is_floating_point() and targets.shape == logits.shape:
        return -(targets * logp).sum(1).mean()
    t = targets.long()
    keep = t != ignore_index
    picked = logp.gather(1, torch.where(keep, t, 0).unsqueeze(1)).squeeze(1)
    return -(picked * keep).sum() / t.numel()


def predict_proba(logits):
    return F.softmax(logits, dim=1)
