"""Keeps the hidden layers in a plain Python list, so they are not registered: their parameters
are missing from state_dict(), parameters() and .to(), and nothing trains them.

Caught by: test_state_dict_keys, test_loads_reference_state_dict, test_meta_device_fallback
"""
from __future__ import annotations

import torch.nn.functional as F
from torch import nn


class MLP(nn.Module):
    def __init__(self, in_features, hidden, out_features, dropout=0.0):
        super().__init__()
        sizes = [in_features, *hidden]
        self.layers = [nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:])]
        self.dropout = nn.Dropout(dropout)
        self.head = nn.Linear(sizes[-1], out_features)

    def forward(self, x):
        for layer in self.layers:
            x = self.dropout(F.relu(layer(x)))
        return self.head(x)
