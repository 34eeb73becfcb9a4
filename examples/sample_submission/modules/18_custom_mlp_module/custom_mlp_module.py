from __future__ import annotations

import torch
from torch import Tensor, nn


class MLP(nn.Module):
    """Hidden Linear layers, each followed by ReLU and dropout; output Linear in self.head."""

    def __init__(self, in_features: int, hidden: list[int], out_features: int, dropout: float = 0.0) -> None:
        super().__init__()
        self.layers = []
        prev = in_features
        for width in hidden:
            self.layers.append(nn.Linear(prev, width))
            prev = width
        self.dropout = nn.Dropout(dropout)
        self.head = nn.Linear(prev, out_features)

    def forward(self, x: Tensor) -> Tensor:
        for layer in self.layers:
            x = self.dropout(torch.relu(layer(x)))
        return self.head(x)
