"""Registers nn.GELU and nn.Dropout modules instead of calling the functional forms: it behaves
right, but the exercise is the functional style (no activation or dropout modules).

Caught by: test_functional_dropout_follows_mode
"""
from __future__ import annotations

import torch.nn.functional as F
from torch import Tensor, nn


class FunctionalNet(nn.Module):
    """self.fc1, self.fc2 = Linear layers; forward: fc2(F.dropout(F.gelu(fc1(x)), p, training=<module mode>)); no nn.Dropout/nn.GELU modules."""

    def __init__(self, in_features: int, hidden: int, out_features: int, p: float = 0.5) -> None:
        super().__init__()
        self.fc1 = nn.Linear(in_features, hidden)
        self.fc2 = nn.Linear(hidden, out_features)
        self.p = p
        self.act = nn.GELU()
        self.drop = nn.Dropout(p)

    def forward(self, x: Tensor) -> Tensor:
        h = self.act(self.fc1(x))
        h = self.drop(h)
        return self.fc2(h)
