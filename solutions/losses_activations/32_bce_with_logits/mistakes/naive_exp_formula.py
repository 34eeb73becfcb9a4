"""Writes sigmoid out with exp to avoid the banned function, then takes logs of probabilities:
at z = -200 exp(200) overflows, p = 0 and log(p) = -inf (an infinite loss); no sigmoid call, so
the API ban does not see it.

Caught by: test_saturated_logits
"""
from __future__ import annotations

import torch


def binary_loss(logits, targets, pos_weight=None):
    if logits.shape != targets.shape:
        if logits.dim() == targets.dim() + 1 and logits.shape[-1] == 1 and logits.shape[:-1] == targets.shape:
            logits = logits.squeeze(-1)
        elif targets.dim() == logits.dim() + 1 and targets.shape[-1] == 1 and targets.shape[:-1] == logits.shape:
            targets = targets.squeeze(-1)
        else:
            raise ValueError("shape mismatch")
    y = targets.to(logits.dtype)
    p = 1.0 / (1.0 + torch.exp(-logits))
    w = 1.0 if pos_weight is None else pos_weight.to(device=logits.device, dtype=logits.dtype)
    return -(w * y * torch.log(p) + (1 - y) * torch.log(1 - p)).mean()


def multilabel_predict(logits, threshold=0.5):
    return torch.sigmoid(logits) >= threshold
