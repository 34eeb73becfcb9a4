from __future__ import annotations

import os
from collections.abc import Callable

import torch
from torch import nn


def count_parameters(model: nn.Module, trainable_only: bool = False) -> int:
    """Returns the number of scalar parameters of the model."""
    raise NotImplementedError


def save_weights(model: nn.Module, path: str | os.PathLike) -> None:
    """Saves the model's weights to a portable file at path."""
    raise NotImplementedError


def load_weights(model_factory: Callable[[], nn.Module], path: str | os.PathLike, device: torch.device | str = "cpu") -> nn.Module:
    """Builds a model with the factory, loads the saved weights into it and returns it on device, ready for inference."""
    raise NotImplementedError
