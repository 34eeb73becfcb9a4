"""The textbook pair: sigmoid, then nn.BCELoss. Right for moderate logits, but sigmoid(-200)
rounds to 0, BCELoss clamps log(0) at -100, and the loss of a confident mistake is 100 instead
of 200 (with a zero gradient).

Caught by: test_saturated_logits, test_forbidden_apis
"""
from __future__ import annotations

import torch
from torch import nn


def _reconcile(logits, targets):
    if logits.shape == targets.shape:
        return logits, targets
    if logits.dim() == targets.dim() + 1 and logits.shape[-1] == 1 and logits.shape[:-1] == targets.shape:
        return logits.squeeze(-1), targets
    if targets.dim() == logits.dim() + 1 and targets.shape[-1] == 1 and targets.shape[:-1] == logits.shape:
        return logits, targets.squeeze(-1)
    raise ValueError("shape mismatch")


def binary_loss(logits, targets, pos_weight=None):
    logits, targets = _reconcile(logits, targets)
    y = targets.to(logits.dtype)
    p = torch.sigmoid(logits)
    if pos_weight is None:
        return nn.BCELoss()(p, y)
    w = pos_weight.to(device=logits.device, dtype=logits.dtype)
    return -(w * y * torch.log(p).clamp(min=-100) + (1 - y) * torch.log(1 - p).clamp(min=-100)).mean()


def multilabel_predict(logits, threshold=0.5):
    return torch.sigmoid(logits) >= threshold
