"""Leaves out the dropout argument's default and builds `nn.Dropout()` (p=0.5) when none is given:
a model made as `MLP(8, [16, 4], 3)` drops half its activations in training.

Caught by: test_train_eval_modes
"""
from __future__ import annotations

import torch.nn.functional as F
from torch import Tensor, nn


class MLP(nn.Module):
    def __init__(self, in_features: int, hidden: list[int], out_features: int, dropout: float | None = None) -> None:
        super().__init__()
        sizes = [in_features, *hidden]
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))
        self.dropout = nn.Dropout() if dropout is None else nn.Dropout(dropout)
        self.head = nn.Linear(sizes[-1], out_features)

    def forward(self, x: Tensor) -> Tensor:
        for layer in self.layers:
            x = self.dropout(F.relu(layer(x)))
        return self.head(x)
