"""to_float_image reshapes the (H,W,C) buffer to (C,H,W) instead of permuting the axes: the
shape is right, but the pixels are scrambled across channels.

Caught by: test_to_float_image
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import torch
from torch import Tensor


class RandomHFlip:
    def __init__(self, p: float = 0.5, generator: torch.Generator | None = None) -> None:
        self.p = p
        self.generator = generator

    def __call__(self, img: Tensor) -> Tensor:
        if torch.rand((), generator=self.generator) < self.p:
            return torch.flip(img, [-1])
        return img


class Normalize:
    def __init__(self, mean: Sequence[float], std: Sequence[float]) -> None:
        self.mean, self.std = list(mean), list(std)

    def __call__(self, img: Tensor) -> Tensor:
        m = torch.tensor(self.mean, dtype=img.dtype).reshape(-1, 1, 1).to(img.device, non_blocking=True)
        s = torch.tensor(self.std, dtype=img.dtype).reshape(-1, 1, 1).to(img.device, non_blocking=True)
        return (img - m) / s


class Compose:
    def __init__(self, transforms: Sequence[Callable[[Tensor], Tensor]]) -> None:
        self.transforms = list(transforms)

    def __call__(self, img: Tensor) -> Tensor:
        for t in self.transforms:
            img = t(img)
        return img


def to_float_image(img: np.ndarray) -> Tensor:
    h, w, c = img.shape
    return torch.from_numpy(img).reshape(c, h, w).to(torch.float32) / 255
