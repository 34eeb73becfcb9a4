"""Keeps the task heads in a plain dict: they are not registered, so parameters(), state_dict()
and .to() miss them, and an optimizer would never train them.

Caught by: test_multitask_parameters, test_no_modules_in_plain_containers, test_meta_device_fallback, test_multitask_shapes
"""
from __future__ import annotations

from collections import OrderedDict

import torch.nn.functional as F
from torch import nn


def named_mlp(sizes):
    layers = OrderedDict()
    for i in range(1, len(sizes)):
        layers[f"fc{i}"] = nn.Linear(sizes[i - 1], sizes[i])
        if i < len(sizes) - 1:
            layers[f"act{i}"] = nn.ReLU()
    return nn.Sequential(layers)


class MultiTaskHeads(nn.Module):
    def __init__(self, in_features, hidden, task_classes):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(in_features, hidden), nn.ReLU())
        self.heads = {task: nn.Linear(hidden, n) for task, n in task_classes.items()}

    def forward(self, x, task):
        return self.heads[task](self.trunk(x))


class Tower(nn.Module):
    def __init__(self, d_in, dim, num_layers):
        super().__init__()
        self.proj = nn.Linear(d_in, dim)
        self.blocks = nn.ModuleList(nn.Linear(dim, dim) for _ in range(num_layers))

    def forward(self, x):
        h = self.proj(x)
        for block in self.blocks:
            h = h + F.relu(block(h))
        return h


class TwoTower(nn.Module):
    def __init__(self, dim_a, dim_b, dim, num_layers):
        super().__init__()
        self.a, self.b = Tower(dim_a, dim, num_layers), Tower(dim_b, dim, num_layers)

    def forward(self, a, b):
        return F.cosine_similarity(self.a(a), self.b(b), dim=-1)
