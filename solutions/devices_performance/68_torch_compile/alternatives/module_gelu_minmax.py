"""Alternative: GELU as a module (no state), the clamp as torch.minimum/torch.maximum against
constant tensors built on the input's device, and the prefix stripped key by key into an
OrderedDict."""
from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler
from collections import OrderedDict


class CompileFriendlyBlock(nn.Module):
    """y = clamp(x + W2(gelu(W1(LayerNorm(x)))), -clip, clip) written without graph breaks (no .item(), print, numpy, data-dependent Python branching)."""

    def __init__(self, dim: int, hidden: int, clip: float = 10.0) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden, dim)
        self.clip = clip

    def forward(self, x: Tensor) -> Tensor:
        y = x + self.fc2(self.act(self.fc1(self.norm(x))))
        high = torch.full((), self.clip, dtype=y.dtype, device=y.device)
        return torch.maximum(torch.minimum(y, high), -high)


def compile_model(model: nn.Module, backend: str | Callable = "inductor", dynamic: bool | None = True) -> nn.Module:
    """torch.compile(model, backend=backend, dynamic=dynamic, fullgraph=True)."""
    options = {"backend": backend, "dynamic": dynamic, "fullgraph": True}
    return torch.compile(model, **options)


def clean_state_dict(model: nn.Module) -> dict[str, Tensor]:
    """state_dict of a possibly compiled model without the '_orig_mod.' prefix."""
    prefix = "_orig_mod."
    clean = OrderedDict()
    for key, value in model.state_dict().items():
        clean[key[len(prefix):] if key.startswith(prefix) else key] = value
    return clean
