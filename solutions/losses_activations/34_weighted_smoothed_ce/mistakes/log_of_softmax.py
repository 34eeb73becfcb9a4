"""Takes log(softmax(logits)): a probability that underflows to 0 gives -inf, so logits of size
1e4 make the loss infinite (or NaN).

Caught by: test_finite_large_logits
"""
from __future__ import annotations

import torch


def weighted_smoothed_ce(logits, targets, class_weights=None, smoothing=0.0):
    num_classes = logits.shape[1]
    log_probs = torch.log(torch.softmax(logits, dim=1))
    targets = targets.long()
    if class_weights is None:
        weights = torch.ones(num_classes, dtype=logits.dtype, device=logits.device)
    else:
        weights = class_weights.to(device=logits.device, dtype=logits.dtype)
    target_weights = weights[targets]
    nll = -log_probs.gather(1, targets.unsqueeze(1)).squeeze(1)
    smooth = -(log_probs * weights).sum(dim=1)
    total = (1.0 - smoothing) * (target_weights * nll).sum() + (smoothing / num_classes) * smooth.sum()
    return total / target_weights.sum()
