"""GELU written with erf, `torch.dropout(x, p, train)` (the functional op under F.dropout), and
the layers built in a loop with setattr."""
from __future__ import annotations

import math

import torch
import torch.nn as nn


class FunctionalNet(nn.Module):
    def __init__(self, in_features: int, hidden: int, out_features: int, p: float = 0.5) -> None:
        super().__init__()
        for name, (fan_in, fan_out) in {"fc1": (in_features, hidden), "fc2": (hidden, out_features)}.items():
            setattr(self, name, nn.Linear(fan_in, fan_out))
        self.drop_p = p

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        z = self.fc1(x)
        z = 0.5 * z * (1.0 + torch.erf(z / math.sqrt(2.0)))
        z = torch.dropout(z, self.drop_p, self.training)
        return self.fc2(z)
