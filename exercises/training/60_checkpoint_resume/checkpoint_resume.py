from __future__ import annotations

import os
from typing import Any

import torch
from torch import nn


def save_checkpoint(path: str | os.PathLike, model: nn.Module, optimizer: torch.optim.Optimizer, scheduler: Any | None,
                    epoch: int, extra: dict | None = None) -> None:
    """Writes one checkpoint file from which load_checkpoint can resume this training run exactly."""
    raise NotImplementedError


def load_checkpoint(path: str | os.PathLike, model: nn.Module, optimizer: torch.optim.Optimizer | None = None,
                    scheduler: Any | None = None, map_location: str | torch.device = "cpu") -> int:
    """Restores a checkpoint into the objects given and returns the next epoch to run."""
    raise NotImplementedError
