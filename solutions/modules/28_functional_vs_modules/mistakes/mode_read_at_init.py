"""Copies the mode into its own attribute at construction and passes that to F.dropout: train()
and eval() change `training`, not the copy, so dropout stays on after eval().

Caught by: test_eval_deterministic_and_dropout_free, test_functional_dropout_follows_mode, test_matches_sequential
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
        self.dropout_on = self.training  # read once, at construction

    def forward(self, x: Tensor) -> Tensor:
        h = F.gelu(self.fc1(x))
        h = F.dropout(h, p=self.p, training=self.dropout_on)
        return self.fc2(h)
