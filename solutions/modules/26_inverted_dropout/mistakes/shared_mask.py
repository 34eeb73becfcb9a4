"""Draws one mask over the last axis and broadcasts it: every row drops the same features.

Caught by: test_train_statistics
"""
from __future__ import annotations

import torch
from torch import Tensor, nn


class InvertedDropout(nn.Module):
    """Train: zero each element with prob p and scale survivors by 1/(1-p); eval or p == 0: identity; p == 1: zeros; 0 <= p <= 1 else ValueError."""

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability must be in [0, 1], got {p}")
        self.p = p

    def forward(self, x: Tensor) -> Tensor:
        if not self.training or self.p == 0.0:
            return x
        if self.p == 1.0:
            return torch.zeros_like(x)
        keep = torch.rand(x.shape[-1], device=x.device) >= self.p
        return x * keep / (1.0 - self.p)
