"""Weights only the true-class term: the smoothing term averages -log p over the classes without
the class weights (and is still divided by the sum of the targets' weights).

Caught by: test_matches_torch, test_weighted_mean_denominator
"""
from __future__ import annotations

import torch


def weighted_smoothed_ce(logits, targets, class_weights=None, smoothing=0.0):
    num_classes = logits.shape[1]
    log_probs = torch.log_softmax(logits, dim=1)
    targets = targets.long()
    if class_weights is None:
        weights = torch.ones(num_classes, dtype=logits.dtype, device=logits.device)
    else:
        weights = class_weights.to(device=logits.device, dtype=logits.dtype)
    target_weights = weights[targets]
    nll = -log_probs.gather(1, targets.unsqueeze(1)).squeeze(1)
    smooth = -log_probs.sum(dim=1)
    total = (1.0 - smoothing) * (target_weights * nll).sum() + (smoothing / num_classes) * smooth.sum()
    return total / target_weights.sum()
