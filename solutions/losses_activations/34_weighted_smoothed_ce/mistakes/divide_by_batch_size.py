"""Takes the mean over the batch: the weighted sum is divided by N instead of the sum of the
targets' weights, which is what PyTorch's weighted 'mean' divides by.

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
    nll = -log_probs.gather(1, targets.unsqueeze(1)).squeeze(1)
    smooth = -(log_probs * weights).sum(dim=1)
    per_sample = (1.0 - smoothing) * weights[targets] * nll + (smoothing / num_classes) * smooth
    return per_sample.mean()
