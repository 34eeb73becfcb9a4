from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor


def binary_loss(logits: Tensor, targets: Tensor, pos_weight: Tensor | None = None) -> Tensor:
    """Mean BCE from raw logits; targets 0/1 of any dtype; (N,1) vs (N,) reconciled by squeezing a trailing singleton; other shape mismatches raise ValueError; pos_weight (K,) for (N,K)."""
    # (N, 1) against (N,), either way round (generally (..., 1) against (...)): squeeze the singleton
    if logits.dim() == targets.dim() + 1 and logits.shape[-1] == 1:
        logits = logits.squeeze(-1)
    elif targets.dim() == logits.dim() + 1 and targets.shape[-1] == 1:
        targets = targets.squeeze(-1)
    if logits.shape != targets.shape:
        raise ValueError(f"logits {tuple(logits.shape)} and targets {tuple(targets.shape)} do not match")
    targets = targets.to(logits.dtype)
    if pos_weight is not None:
        pos_weight = pos_weight.to(device=logits.device, dtype=logits.dtype)
    return F.binary_cross_entropy_with_logits(logits, targets, pos_weight=pos_weight)


def multilabel_predict(logits: Tensor, threshold: float = 0.5) -> Tensor:
    """Bool (N,K): sigmoid(logits) >= threshold."""
    return torch.sigmoid(logits) >= threshold
