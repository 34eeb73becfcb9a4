"""Compares the logits themselves with the probability threshold: at 0.5 the logits between 0 and
0.5 are called negative (and it returns floats from a multiplication by the mask).

Caught by: test_multilabel_predict
"""
from __future__ import annotations

import torch.nn.functional as F


def binary_loss(logits, targets, pos_weight=None):
    if logits.shape != targets.shape:
        if logits.dim() == targets.dim() + 1 and logits.shape[-1] == 1 and logits.shape[:-1] == targets.shape:
            logits = logits.squeeze(-1)
        elif targets.dim() == logits.dim() + 1 and targets.shape[-1] == 1 and targets.shape[:-1] == logits.shape:
            targets = targets.squeeze(-1)
        else:
            raise ValueError("shape mismatch")
    if pos_weight is not None:
        pos_weight = pos_weight.to(device=logits.device, dtype=logits.dtype)
    return F.binary_cross_entropy_with_logits(logits, targets.to(logits.dtype), pos_weight=pos_weight)


def multilabel_predict(logits, threshold=0.5):
    return (logits >= threshold).float()
