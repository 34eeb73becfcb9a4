from __future__ import annotations

import torch.nn.functional as F
from torch import Tensor


def classification_loss(logits: Tensor, targets: Tensor, ignore_index: int = -100) -> Tensor:
    """Mean cross-entropy from RAW logits (N,C) or (N,C,*); targets are class indices (N,)/(N,*) of any integer dtype or integral floats, or float class probabilities shaped like logits."""
    if targets.is_floating_point() and targets.shape == logits.shape:
        return F.cross_entropy(logits, targets.to(logits.dtype))
    return F.cross_entropy(logits, targets.long(), ignore_index=ignore_index)


def predict_proba(logits: Tensor) -> Tensor:
    """Class probabilities (softmax over the class dim 1) for reporting only; never fed into the loss."""
    return F.softmax(logits, dim=1)
