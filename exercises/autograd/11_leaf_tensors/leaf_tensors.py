from __future__ import annotations

from typing import Any

import torch
from torch import Tensor


def make_trainable(data: Any, device: torch.device | str = "cpu") -> Tensor:
    """Return data as a float32 tensor on device that trains like a parameter: backward fills its own .grad."""
    raise NotImplementedError


def is_trainable_leaf(t: Tensor) -> bool:
    """Return True when t is a leaf of the autograd graph whose .grad a backward pass fills in."""
    raise NotImplementedError
