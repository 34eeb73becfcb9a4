"""Hands the work to F.cross_entropy (after casting the weights and targets): the value is right,
the exercise forbids it.

Caught by: test_forbidden_apis
"""
from __future__ import annotations

import torch.nn.functional as F


def weighted_smoothed_ce(logits, targets, class_weights=None, smoothing=0.0):
    weights = None if class_weights is None else class_weights.to(device=logits.device, dtype=logits.dtype)
    return F.cross_entropy(logits, targets.long(), weight=weights, label_smoothing=smoothing)
