"""The mask from Tensor.bernoulli_ (keep probability 1 - p) on an empty_like buffer, scaled by a
precomputed factor; eval returns a copy."""
from __future__ import annotations

import torch
from torch import nn


class InvertedDropout(nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError("p must lie in [0, 1]")
        self.p = float(p)

    def forward(self, x):
        if not self.training or self.p == 0:
            return x.clone()
        if self.p >= 1:
            return torch.zeros_like(x)
        mask = torch.empty_like(x).bernoulli_(1 - self.p)
        return x * mask * (1 / (1 - self.p))
