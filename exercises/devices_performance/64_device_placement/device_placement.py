from __future__ import annotations
from typing import Any
import torch
from torch import Tensor, nn


def pick_device(prefer: str | None = None) -> torch.device:
    """Return the device to run on: the one asked for when it is available, otherwise the best one this machine has."""
    raise NotImplementedError


def move_batch(batch: Any, device: torch.device | str, non_blocking: bool = True) -> Any:
    """Return the batch with the same nested structure and every tensor on device."""
    raise NotImplementedError


def forward_on(model: nn.Module, x: Tensor, device: torch.device | str) -> Tensor:
    """Run model on x on the given device and return the output, which is on that device."""
    raise NotImplementedError
