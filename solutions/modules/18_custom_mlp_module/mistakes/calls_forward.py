"""Calls `layer.forward(x)` directly, which skips hooks, and applies dropout with the functional
form in training mode always, ignoring model.eval().

Caught by: test_hooks_fire_once, test_train_eval_modes
"""
from __future__ import annotations

import torch.nn.functional as F
from torch import nn


class MLP(nn.Module):
    def __init__(self, in_features, hidden, out_features, dropout=0.0):
        super().__init__()
        sizes = [in_features, *hidden]
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))
        self.dropout = nn.Dropout(dropout)
        self.p = dropout
        self.head = nn.Linear(sizes[-1], out_features)

    def forward(self, x):
        for layer in self.layers:
            x = F.dropout(F.relu(layer.forward(x)), self.p, training=True)
        return self.head.forward(x)
