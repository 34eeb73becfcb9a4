"""Alternative: counts with an explicit loop over named_parameters(), writes through an open file,
and moves the fresh model to the device before copying the loaded CPU tensors into it."""
from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Callable

import torch
from torch import nn


def count_parameters(model: nn.Module, trainable_only: bool = False) -> int:
    """Number of scalar parameters (buffers excluded)."""
    total = 0
    for _name, param in model.named_parameters():
        if trainable_only and not param.requires_grad:
            continue
        total += param.numel()
    return int(total)


def save_weights(model: nn.Module, path: str | os.PathLike) -> None:
    """Save only model.state_dict() with every tensor on CPU (default zip format)."""
    state = OrderedDict((key, value.to("cpu", copy=True)) for key, value in model.state_dict().items())
    with open(path, "wb") as handle:
        torch.save(state, handle)


def load_weights(model_factory: Callable[[], nn.Module], path: str | os.PathLike,
                 device: torch.device | str = "cpu") -> nn.Module:
    """Build the architecture, strictly load with torch.load(weights_only=True), move to device, set eval mode, return it."""
    model = model_factory().to(torch.device(device))
    with open(path, "rb") as handle:
        state = torch.load(handle, weights_only=True)
    missing, unexpected = model.load_state_dict(state)
    return model.train(False)
