from __future__ import annotations

from torch import Tensor


def binary_loss(logits: Tensor, targets: Tensor, pos_weight: Tensor | None = None) -> Tensor:
    """Return the mean binary cross-entropy of logits against 0/1 targets as a 0-dim tensor."""
    raise NotImplementedError


def multilabel_predict(logits: Tensor, threshold: float = 0.5) -> Tensor:
    """Return a bool tensor marking the labels whose predicted probability reaches threshold."""
    raise NotImplementedError
