"""Uses the tanh approximation of GELU (`approximate="tanh"`), which nn.GELU() does not.

Caught by: test_eval_deterministic_and_dropout_free, test_matches_sequential
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

    def forward(self, x: Tensor) -> Tensor:
        h = F.gelu(self.fc1(x), approximate="tanh")
        h = F.dropout(h, p=self.p, training=self.training)
        return self.fc2(h)
