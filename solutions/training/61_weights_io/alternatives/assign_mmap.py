"""Alternative: counts with numel over a filtered parameter list, saves a dict comprehension, and
loads the file memory-mapped with load_state_dict(assign=True) (the loaded tensors become the
model's), then moves the model."""
from __future__ import annotations

import os
from collections.abc import Callable

import torch
from torch import nn


def count_parameters(model: nn.Module, trainable_only: bool = False) -> int:
    """Number of scalar parameters (buffers excluded)."""
    params = [p for p in model.parameters() if p.requires_grad] if trainable_only else list(model.parameters())
    return sum(map(torch.numel, params))


def save_weights(model: nn.Module, path: str | os.PathLike) -> None:
    """Save only model.state_dict() with every tensor on CPU (default zip format)."""
    torch.save({k: v.cpu().clone() for k, v in model.state_dict().items()}, os.fspath(path))


def load_weights(model_factory: Callable[[], nn.Module], path: str | os.PathLike,
                 device: torch.device | str = "cpu") -> nn.Module:
    """Build the architecture, strictly load with torch.load(weights_only=True), move to device, set eval mode, return it."""
    model = model_factory()
    state = torch.load(os.fspath(path), map_location="cpu", weights_only=True, mmap=True)
    model.load_state_dict(state, strict=True, assign=True)
    model = model.to(device)
    model.eval()
    return model
