"""An OrderedDict comprehension for named_mlp; blocks as Sequential(Linear, ReLU) inside a
ModuleList; the cosine written out with a clamped norm product."""
from __future__ import annotations

from collections import OrderedDict

import torch
from torch import nn


def named_mlp(sizes: list[int]) -> nn.Sequential:
    k = len(sizes) - 1
    items = []
    for i in range(1, k + 1):
        items.append((f"fc{i}", nn.Linear(sizes[i - 1], sizes[i])))
        items.append((f"act{i}", nn.ReLU()))
    return nn.Sequential(OrderedDict(items[:-1]))


class MultiTaskHeads(nn.Module):
    def __init__(self, in_features: int, hidden: int, task_classes: dict[str, int]) -> None:
        super().__init__()
        self.trunk = nn.Sequential(OrderedDict(fc=nn.Linear(in_features, hidden), act=nn.ReLU()))
        self.heads = nn.ModuleDict([(t, nn.Linear(hidden, n)) for t, n in task_classes.items()])

    def forward(self, x: torch.Tensor, task: str) -> torch.Tensor:
        if task not in self.heads:
            raise KeyError(task)
        return self.heads[task](self.trunk(x))


class Encoder(nn.Module):
    def __init__(self, d_in: int, dim: int, num_layers: int) -> None:
        super().__init__()
        self.inp = nn.Linear(d_in, dim)
        self.layers = nn.ModuleList(nn.Sequential(nn.Linear(dim, dim), nn.ReLU()) for _ in range(num_layers))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.inp(x)
        for layer in self.layers:
            x = x + layer(x)
        return x


class TwoTower(nn.Module):
    def __init__(self, dim_a: int, dim_b: int, dim: int, num_layers: int) -> None:
        super().__init__()
        self.enc_a = Encoder(dim_a, dim, num_layers)
        self.enc_b = Encoder(dim_b, dim, num_layers)

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        u, v = self.enc_a(a), self.enc_b(b)
        norms = (u.norm(dim=1) * v.norm(dim=1)).clamp_min(1e-8)
        return (u * v).sum(dim=1) / norms
