"""Keeps mean/std as float32 tensors and moves them to the image's device only, not to its dtype:
a float32 image is fine, but a float16 image is promoted (float16 - float32 is float32), so the
result is not in the input's float dtype.

Caught by: test_normalize_keeps_float_dtype
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import torch
from torch import Tensor


class RandomHFlip:
    """With probability p flip a (C,H,W) or (N,C,H,W) tensor left-right (last dim); uses the given torch.Generator."""

    def __init__(self, p: float = 0.5, generator: torch.Generator | None = None) -> None:
        self.p = float(p)
        self.generator = generator

    def __call__(self, img: Tensor) -> Tensor:
        # One CPU draw per call (never on the image's device: no host sync on CUDA).
        if torch.rand((), generator=self.generator).item() < self.p:
            return torch.flip(img, dims=[-1])
        return img


class Normalize:
    """Per-channel (x - mean[c]) / std[c] for (C,H,W) or (N,C,H,W) inputs."""

    def __init__(self, mean: Sequence[float], std: Sequence[float]) -> None:
        # (C,1,1) so that they broadcast over H and W, never over the last dim (W).
        self.mean = torch.tensor([float(m) for m in mean], dtype=torch.float32).view(-1, 1, 1)
        self.std = torch.tensor([float(s) for s in std], dtype=torch.float32).view(-1, 1, 1)

    def __call__(self, img: Tensor) -> Tensor:
        # non_blocking: the host-to-device copy does not synchronise on CUDA. Out of place: the
        # caller's (maybe cached) image is never modified.
        mean = self.mean.to(device=img.device, non_blocking=True)
        std = self.std.to(device=img.device, non_blocking=True)
        return (img - mean) / std


class Compose:
    """Apply the transforms in order."""

    def __init__(self, transforms: Sequence[Callable[[Tensor], Tensor]]) -> None:
        self.transforms = list(transforms)

    def __call__(self, img: Tensor) -> Tensor:
        for t in self.transforms:
            img = t(img)
        return img


def to_float_image(img: np.ndarray) -> Tensor:
    """(H,W,C) uint8 -> (C,H,W) float32 in [0,1] (like torchvision ToTensor)."""
    return torch.from_numpy(np.ascontiguousarray(img)).permute(2, 0, 1).to(torch.float32).div(255.0)
