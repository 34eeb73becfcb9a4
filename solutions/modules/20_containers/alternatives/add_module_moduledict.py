"""add_module for the names, a bare Linear + F.relu trunk, and towers kept in an nn.ModuleDict;
cosine similarity through F.normalize and a dot product."""
from __future__ import annotations

import torch.nn.functional as F
from torch import nn


def named_mlp(sizes):
    seq = nn.Sequential()
    last = len(sizes) - 1
    for i in range(1, last + 1):
        seq.add_module(f"fc{i}", nn.Linear(sizes[i - 1], sizes[i]))
        if i != last:
            seq.add_module(f"act{i}", nn.ReLU())
    return seq


class MultiTaskHeads(nn.Module):
    def __init__(self, in_features, hidden, task_classes):
        super().__init__()
        self.shared = nn.Linear(in_features, hidden)
        self.heads = nn.ModuleDict()
        for task, n in task_classes.items():
            self.heads[task] = nn.Linear(hidden, n)

    def forward(self, x, task):
        head = self.heads[task]
        return head(F.relu(self.shared(x)))


class TwoTower(nn.Module):
    def __init__(self, dim_a, dim_b, dim, num_layers):
        super().__init__()
        self.towers = nn.ModuleDict()
        for side, d in (("a", dim_a), ("b", dim_b)):
            self.towers[f"{side}_proj"] = nn.Linear(d, dim)
            self.towers[f"{side}_blocks"] = nn.ModuleList([nn.Linear(dim, dim) for _ in range(num_layers)])

    def encode(self, side, x):
        h = self.towers[f"{side}_proj"](x)
        for block in self.towers[f"{side}_blocks"]:
            h = F.relu(block(h)) + h
        return F.normalize(h, dim=-1)

    def forward(self, a, b):
        return (self.encode("a", a) * self.encode("b", b)).sum(dim=-1)
