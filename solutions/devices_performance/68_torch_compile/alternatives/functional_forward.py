"""Alternative: a functional forward (F.layer_norm, F.linear on the registered parameters), the
clamp as a tensor method, keyword arguments in another order, and the clean state dict read from
the wrapped module itself (`_orig_mod`)."""
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
        self.clip = float(clip)
        self.dim = dim

    def forward(self, x: Tensor) -> Tensor:
        normed = F.layer_norm(x, (self.dim,), self.norm.weight, self.norm.bias, self.norm.eps)
        hidden = F.gelu(F.linear(normed, self.fc1.weight, self.fc1.bias))
        out = x + F.linear(hidden, self.fc2.weight, self.fc2.bias)
        return out.clamp(min=-self.clip, max=self.clip)


def compile_model(model: nn.Module, backend: str | Callable = "inductor", dynamic: bool | None = True) -> nn.Module:
    """torch.compile(model, backend=backend, dynamic=dynamic, fullgraph=True)."""
    return torch.compile(model, fullgraph=True, dynamic=dynamic, backend=backend)


def clean_state_dict(model: nn.Module) -> dict[str, Tensor]:
    """state_dict of a possibly compiled model without the '_orig_mod.' prefix."""
    inner = getattr(model, "_orig_mod", model)  # torch.compile's OptimizedModule keeps the original here
    return dict(inner.state_dict())
