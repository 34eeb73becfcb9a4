"""A correct alternative: ReLU as clamp_min, layers built from a list."""
from __future__ import annotations

from torch import Tensor, nn


class MLP(nn.Module):
    def __init__(self, in_features, hidden, out_features, dropout=0.0):
        super().__init__()
        dims = [in_features] + list(hidden)
        self.layers = nn.ModuleList([nn.Linear(dims[i], dims[i + 1]) for i in range(len(hidden))])
        self.dropout = nn.Dropout(dropout)
        self.head = nn.Linear(dims[-1], out_features)

    def forward(self, x: Tensor) -> Tensor:
        for layer in self.layers:
            x = self.dropout(layer(x).clamp_min(0))
        return self.head(x)
