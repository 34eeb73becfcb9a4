"""A correct alternative: the hidden layers in an nn.Sequential (same state_dict keys), dropout
applied functionally with the module's own training flag."""
from __future__ import annotations

import torch.nn.functional as F
from torch import Tensor, nn


class MLP(nn.Module):
    def __init__(self, in_features: int, hidden: list[int], out_features: int, dropout: float = 0.0) -> None:
        super().__init__()
        widths = [in_features, *hidden]
        self.layers = nn.Sequential(*(nn.Linear(a, b) for a, b in zip(widths, widths[1:])))
        self.p = dropout
        self.head = nn.Linear(widths[-1], out_features)

    def forward(self, x: Tensor) -> Tensor:
        for linear in self.layers:
            x = F.dropout(F.relu(linear(x)), self.p, training=self.training)
        return self.head(x)
