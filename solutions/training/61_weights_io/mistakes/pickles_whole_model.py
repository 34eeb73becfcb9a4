"""Pickles the whole module (torch.save(model)): the file names the model's class, so it needs
that code to load and torch.load(weights_only=True) refuses it.

Caught by: test_saved_state_dict_keys, test_file_format
"""
from __future__ import annotations

import os
from collections.abc import Callable

import torch
from torch import nn


def count_parameters(model: nn.Module, trainable_only: bool = False) -> int:
    """Number of scalar parameters (buffers excluded)."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad or not trainable_only)


def save_weights(model: nn.Module, path: str | os.PathLike) -> None:
    """Save only model.state_dict() with every tensor on CPU (default zip format)."""
    torch.save(model.cpu(), path)


def load_weights(model_factory: Callable[[], nn.Module], path: str | os.PathLike,
                 device: torch.device | str = "cpu") -> nn.Module:
    """Build the architecture, strictly load with torch.load(weights_only=True), move to device, set eval mode, return it."""
    model = model_factory()
    state = torch.load(path, map_location="cpu", weights_only=True)
    model.load_state_dict(state, strict=True)
    model.to(device)
    model.eval()
    return model
