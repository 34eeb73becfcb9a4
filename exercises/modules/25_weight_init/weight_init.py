from __future__ import annotations

from typing import Literal

from torch import nn


def init_weights_(model: nn.Module, scheme: Literal["xavier", "kaiming", "gpt2"]) -> nn.Module:
    """Initialise every layer of model in place with the named scheme and return model."""
    raise NotImplementedError


def default_linear_bound(fan_in: int) -> float:
    """Return b such that PyTorch's default nn.Linear weight initialisation is U(-b, b)."""
    raise NotImplementedError
