"""Reference for 34_weighted_smoothed_ce: PyTorch's weighted, label-smoothed cross-entropy."""
from __future__ import annotations

import torch
from torch import Tensor


def weighted_smoothed_ce(logits: Tensor, targets: Tensor, class_weights: Tensor | None = None,
                         smoothing: float = 0.0) -> Tensor:
    """Reproduce nn.CrossEntropyLoss(weight=class_weights, label_smoothing=smoothing, reduction='mean') for (N,C) logits without calling it."""
    num_classes = logits.shape[1]
    log_probs = torch.log_softmax(logits, dim=1)
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
