"""Reference solution for 18_custom_mlp_module."""
from __future__ import annotations

import torch.nn.functional as F
from torch import Tensor, nn


class MLP(nn.Module):
    """Hidden Linear layers in self.layers (nn.ModuleList of nn.Linear only), each followed by ReLU and self.dropout (nn.Dropout); output Linear in self.head."""

    def __init__(self, in_features: int, hidden: list[int], out_features: int, dropout: float = 0.0) -> None:
        super().__init__()
        sizes = [in_features, *hidden]
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))
        self.dropout = nn.Dropout(dropout)
        self.head = nn.Linear(sizes[-1], out_features)

    def forward(self, x: Tensor) -> Tensor:
        for layer in self.layers:
            x = self.dropout(F.relu(layer(x)))
        return self.head(x)
