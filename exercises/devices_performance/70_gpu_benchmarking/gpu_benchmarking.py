from __future__ import annotations
from collections.abc import Callable
from typing import Any
import torch


def benchmark(fn: Callable[[], Any], warmup: int = 5, iters: int = 50, device: torch.device | str = "cpu") -> dict[str, float]:
    """Return the mean, median and minimum time of one call of fn on device, in milliseconds, after warmup untimed calls."""
    raise NotImplementedError
