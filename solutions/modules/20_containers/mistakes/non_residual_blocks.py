"""Stacks the blocks as a plain MLP, h = relu(block(h)), dropping the residual connection the
task asks for: shapes, ranges and gradients all look fine.

Caught by: test_two_tower_residual_values
"""
from __future__ import annotations

from collections import OrderedDict

import torch.nn.functional as F
from torch import Tensor, nn


def named_mlp(sizes: list[int]) -> nn.Sequential:
    """Sequential of Linear/ReLU with children named fc1, act1, fc2, act2, ..., fcK (no activation after the last Linear)."""
    layers: OrderedDict[str, nn.Module] = OrderedDict()
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:]), start=1):
        layers[f"fc{i}"] = nn.Linear(a, b)
        if i < len(sizes) - 1:
            layers[f"act{i}"] = nn.ReLU()
    return nn.Sequential(layers)


class MultiTaskHeads(nn.Module):
    """Shared trunk (Linear+ReLU) then one Linear head per task held in self.heads (nn.ModuleDict); forward(x, task) returns that task's logits."""

    def __init__(self, in_features: int, hidden: int, task_classes: dict[str, int]) -> None:
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(in_features, hidden), nn.ReLU())
        self.heads = nn.ModuleDict({task: nn.Linear(hidden, n) for task, n in task_classes.items()})

    def forward(self, x: Tensor, task: str) -> Tensor:
        return self.heads[task](self.trunk(x))


class _Tower(nn.Module):
    def __init__(self, dim_in: int, dim: int, num_layers: int) -> None:
        super().__init__()
        self.proj = nn.Linear(dim_in, dim)
        self.blocks = nn.ModuleList(nn.Linear(dim, dim) for _ in range(num_layers))

    def forward(self, x: Tensor) -> Tensor:
        h = self.proj(x)
        for block in self.blocks:
            h = F.relu(block(h))
        return h


class TwoTower(nn.Module):
    """Two encoders (input proj + num_layers residual Linear+ReLU blocks in nn.ModuleList each); forward(a, b) -> cosine similarity (B,)."""

    def __init__(self, dim_a: int, dim_b: int, dim: int, num_layers: int) -> None:
        super().__init__()
        self.tower_a = _Tower(dim_a, dim, num_layers)
        self.tower_b = _Tower(dim_b, dim, num_layers)

    def forward(self, a: Tensor, b: Tensor) -> Tensor:
        return F.cosine_similarity(self.tower_a(a), self.tower_b(b), dim=-1)
