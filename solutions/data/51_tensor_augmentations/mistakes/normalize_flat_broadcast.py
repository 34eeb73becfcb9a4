"""Normalize with mean/std of shape (C,): broadcasting lines them up with the last dim (W), so
on an image with C == W the columns are normalised instead of the channels (and other shapes
raise).

Caught by: test_normalize_channel_equals_width, test_compose_picklable_in_workers, test_transforms_follow_image_device
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
        if torch.rand(1, generator=self.generator).item() < self.p:
            return img.flip(-1)
        return img


class Normalize:
    def __init__(self, mean: Sequence[float], std: Sequence[float]) -> None:
        self.mean = torch.tensor(mean)
        self.std = torch.tensor(std)

    def __call__(self, img: Tensor) -> Tensor:
        return (img - self.mean.to(img.device, non_blocking=True)) / self.std.to(img.device, non_blocking=True)


class Compose:
    def __init__(self, transforms: Sequence[Callable[[Tensor], Tensor]]) -> None:
        self.transforms = transforms

    def __call__(self, img: Tensor) -> Tensor:
        for t in self.transforms:
            img = t(img)
        return img


def to_float_image(img: np.ndarray) -> Tensor:
    return torch.from_numpy(img).permute(2, 0, 1).float() / 255
