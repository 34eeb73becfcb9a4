"""Builds the smoothed target distribution with F.one_hot on the targets as given: one_hot only
takes int64, so int32 and uint8 targets raise.

Caught by: test_integer_targets_accepted
"""
from __future__ import annotations

import torch
import torch.nn.functional as F


def weighted_smoothed_ce(logits, targets, class_weights=None, smoothing=0.0):
    num_classes = logits.shape[1]
    log_probs = torch.log_softmax(logits, dim=1)
    weights = torch.ones(num_classes, dtype=logits.dtype, device=logits.device) if class_weights is None \
        else class_weights.to(device=logits.device, dtype=logits.dtype)
    onehot = F.one_hot(targets, num_classes).to(logits.dtype)
    soft = (1.0 - smoothing) * onehot + smoothing / num_classes
    per_sample = -(soft * weights * log_probs).sum(dim=1)
    return per_sample.sum() / (onehot * weights).sum()
