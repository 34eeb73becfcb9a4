"""A correct alternative: layers appended one by one, functional dropout through self.dropout."""
from __future__ import annotations

from torch import Tensor, nn


class MLP(nn.Module):
    def __init__(self, in_features: int, hidden: list[int], out_features: int, dropout: float = 0.0) -> None:
        super().__init__()
        self.layers = nn.ModuleList()
        width = in_features
        for h in hidden:
            self.layers.append(nn.Linear(width, h))
            width = h
        self.dropout = nn.Dropout(p=dropout)
        self.head = nn.Linear(width, out_features)
        self.act = nn.ReLU()

    def forward(self, x: Tensor) -> Tensor:
        for layer in self.layers:
            x = self.dropout(self.act(layer(x)))
        return self.head(x)
