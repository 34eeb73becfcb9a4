"""Flattens the input to (batch, features) first, so a (4, 7, in) batch comes out as (4, out)
or fails; it also names the output layer `out` instead of `head`.

Caught by: test_output_shapes, test_state_dict_keys
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
        self.out = nn.Linear(sizes[-1], out_features)

    def forward(self, x):
        x = x.reshape(x.shape[0], -1)
        for layer in self.layers:
            x = self.dropout(F.relu(layer(x)))
        return self.out(x)
