from __future__ import annotations

from torch import Tensor


def weighted_smoothed_ce(logits: Tensor, targets: Tensor, class_weights: Tensor | None = None, smoothing: float = 0.0) -> Tensor:
    """Return the 0-dim loss nn.CrossEntropyLoss gives for (N, C) logits with weight=class_weights, label_smoothing=smoothing and mean reduction."""
    raise NotImplementedError
