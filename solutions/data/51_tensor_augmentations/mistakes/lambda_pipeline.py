"""Stores each transform as a lambda (a closure over mean/std and p): fine in the main process,
but the pipeline cannot be pickled, so DataLoader workers under spawn or forkserver fail.

Caught by: test_compose_picklable_in_workers
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import torch
from torch import Tensor


class RandomHFlip:
    def __init__(self, p: float = 0.5, generator: torch.Generator | None = None) -> None:
        self.fn = lambda img: img.flip(-1) if torch.rand((), generator=generator) < p else img

    def __call__(self, img: Tensor) -> Tensor:
        return self.fn(img)


class Normalize:
    def __init__(self, mean: Sequence[float], std: Sequence[float]) -> None:
        m = torch.tensor(mean).view(-1, 1, 1)
        s = torch.tensor(std).view(-1, 1, 1)
        self.fn = lambda img: (img - m.to(img.device, non_blocking=True)) / s.to(img.device, non_blocking=True)

    def __call__(self, img: Tensor) -> Tensor:
        return self.fn(img)


class Compose:
    def __init__(self, transforms: Sequence[Callable[[Tensor], Tensor]]) -> None:
        self.transforms = list(transforms)

    def __call__(self, img: Tensor) -> Tensor:
        for t in self.transforms:
            img = t(img)
        return img


def to_float_image(img: np.ndarray) -> Tensor:
    return torch.from_numpy(img).permute(2, 0, 1).float() / 255
