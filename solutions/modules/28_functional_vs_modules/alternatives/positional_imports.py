"""Functions imported by name, `training` passed positionally, dropout in place on the fresh GELU
output."""
from __future__ import annotations

from torch import nn
from torch.nn.functional import dropout, gelu


class FunctionalNet(nn.Module):
    def __init__(self, in_features, hidden, out_features, p=0.5):
        super().__init__()
        self.p = float(p)
        self.fc1 = nn.Linear(in_features, hidden)
        self.fc2 = nn.Linear(hidden, out_features)

    def forward(self, x):
        return self.fc2(dropout(gelu(self.fc1(x)), self.p, self.training, True))
