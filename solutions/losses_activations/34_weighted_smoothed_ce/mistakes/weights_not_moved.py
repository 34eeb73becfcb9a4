"""Uses class_weights as given: weights on the CPU meet logits on another device and fail, and
float32 weights promote a bfloat16 loss to float32.

Caught by: test_meta_weights_moved, test_result_dtype_follows_logits, test_cuda_logits_cpu_weights
"""
from __future__ import annotations

import torch


def weighted_smoothed_ce(logits, targets, class_weights=None, smoothing=0.0):
    num_classes = logits.shape[1]
    log_probs = torch.log_softmax(logits, dim=1)
    targets = targets.long()
    weights = torch.ones(num_classes, dtype=logits.dtype, device=logits.device) if class_weights is None \
        else class_weights
    target_weights = weights[targets]
    nll = -log_probs.gather(1, targets.unsqueeze(1)).squeeze(1)
    smooth = -(log_probs * weights).sum(dim=1)
    total = (1.0 - smoothing) * (target_weights * nll).sum() + (smoothing / num_classes) * smooth.sum()
    return total / target_weights.sum()
