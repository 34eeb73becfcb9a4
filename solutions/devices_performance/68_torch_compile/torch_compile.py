from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


class CompileFriendlyBlock(nn.Module):
    """y = clamp(x + W2(gelu(W1(LayerNorm(x)))), -clip, clip) written without graph breaks (no .item(), print, numpy, data-dependent Python branching)."""

    def __init__(self, dim: int, hidden: int, clip: float = 10.0) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)
        self.clip = clip

    def forward(self, x: Tensor) -> Tensor:
        h = self.fc2(F.gelu(self.fc1(self.norm(x))))
        return torch.clamp(x + h, -self.clip, self.clip)  # a tensor op: no Python-side test of the values


def compile_model(model: nn.Module, backend: str | Callable = "inductor", dynamic: bool | None = True) -> nn.Module:
    """torch.compile(model, backend=backend, dynamic=dynamic, fullgraph=True)."""
    return torch.compile(model, backend=backend, dynamic=dynamic, fullgraph=True)


def clean_state_dict(model: nn.Module) -> dict[str, Tensor]:
    """state_dict of a possibly compiled model without the '_orig_mod.' prefix."""
    prefix = "_orig_mod."
    return {key.removeprefix(prefix): value for key, value in model.state_dict().items()}
