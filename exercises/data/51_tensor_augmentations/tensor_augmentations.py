from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import torch
from torch import Tensor


class RandomHFlip:
    """A random horizontal flip of image tensors, drawn from the given generator."""

    def __init__(self, p: float = 0.5, generator: torch.Generator | None = None) -> None:
        raise NotImplementedError

    def __call__(self, img: Tensor) -> Tensor:
        raise NotImplementedError


class Normalize:
    """Per-channel normalisation of image tensors with the given means and standard deviations."""

    def __init__(self, mean: Sequence[float], std: Sequence[float]) -> None:
        raise NotImplementedError

    def __call__(self, img: Tensor) -> Tensor:
        raise NotImplementedError


class Compose:
    """Applies the transforms in order."""

    def __init__(self, transforms: Sequence[Callable[[Tensor], Tensor]]) -> None:
        raise NotImplementedError

    def __call__(self, img: Tensor) -> Tensor:
        raise NotImplementedError


def to_float_image(img: np.ndarray) -> Tensor:
    """Converts an (H,W,C) uint8 image array to a (C,H,W) float32 tensor with values in [0, 1]."""
    raise NotImplementedError
