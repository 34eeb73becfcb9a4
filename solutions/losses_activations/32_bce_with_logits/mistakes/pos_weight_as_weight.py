"""Passes pos_weight as `weight` (which scales both terms of every element) and leaves it on its
own device: the imbalance weighting is wrong, and a CPU pos_weight meets GPU (or meta) logits.

Caught by: test_pos_weight, test_meta_pos_weight_follows_logits
"""
from __future__ import annotations

import torch
import torch.nn.functional as F


def binary_loss(logits, targets, pos_weight=None):
    if logits.shape != targets.shape:
        if logits.dim() == targets.dim() + 1 and logits.shape[-1] == 1 and logits.shape[:-1] == targets.shape:
            logits = logits.squeeze(-1)
        elif targets.dim() == logits.dim() + 1 and targets.shape[-1] == 1 and targets.shape[:-1] == logits.shape:
            targets = targets.squeeze(-1)
        else:
            raise ValueError("shape mismatch")
    return F.binary_cross_entropy_with_logits(logits, targets.to(logits.dtype), weight=pos_weight)


def multilabel_predict(logits, threshold=0.5):
    return torch.sigmoid(logits) >= threshold
