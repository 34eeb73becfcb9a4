from __future__ import annotations

from typing import Literal

from torch import Tensor, nn


class FocalLoss(nn.Module):
    """Multi-class focal loss from raw logits, with optional per-class weights alpha."""

    def __init__(self, gamma: float = 2.0, alpha: Tensor | None = None, reduction: Literal["mean", "sum", "none"] = "mean") -> None:
        raise NotImplementedError

    def forward(self, logits: Tensor, targets: Tensor) -> Tensor:
        raise NotImplementedError


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0) -> Tensor:
    """Return the triplet margin loss of the embeddings, averaged over the triplets."""
    raise NotImplementedError
