from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler



class RandomHFlip:
    """With probability p flip a (C,H,W) or (N,C,H,W) tensor left-right (last dim); uses the given torch.Generator."""

    def __init__(self, p: float = 0.5, generator: torch.Generator | None = None) -> None:
        raise NotImplementedError

    def __call__(self, img: Tensor) -> Tensor:
        raise NotImplementedError


class Normalize:
    """Per-channel (x - mean[c]) / std[c] for (C,H,W) or (N,C,H,W) inputs."""

    def __init__(self, mean: Sequence[float], std: Sequence[float]) -> None:
        raise NotImplementedError

    def __call__(self, img: Tensor) -> Tensor:
        raise NotImplementedError


class Compose:
    """Apply the transforms in order."""

    def __init__(self, transforms: Sequence[Callable[[Tensor], Tensor]]) -> None:
        raise NotImplementedError

    def __call__(self, img: Tensor) -> Tensor:
        raise NotImplementedError


def to_float_image(img: np.ndarray) -> Tensor:
    """(H,W,C) uint8 -> (C,H,W) float32 in [0,1] (like torchvision ToTensor)."""
    raise NotImplementedError
