"""The transforms as nn.Modules with mean/std as registered (C,1,1) buffers moved with
non_blocking copies, a flip through a negative-step view via torch.where on a scalar coin, and
ToTensor-style float conversion with torch.as_tensor + movedim."""
from __future__ import annotations

import numpy as np
import torch
from torch import nn


class RandomHFlip(nn.Module):
    def __init__(self, p: float = 0.5, generator: torch.Generator | None = None) -> None:
        super().__init__()
        self.p = p
        self.generator = generator

    def forward(self, img: torch.Tensor) -> torch.Tensor:
        u = float(torch.rand(1, generator=self.generator))
        return img.flip(dims=(img.dim() - 1,)) if u < self.p else img


class Normalize(nn.Module):
    def __init__(self, mean, std) -> None:
        super().__init__()
        self.register_buffer("mean", torch.as_tensor(list(mean), dtype=torch.float32)[:, None, None])
        self.register_buffer("std", torch.as_tensor(list(std), dtype=torch.float32)[:, None, None])

    def forward(self, img: torch.Tensor) -> torch.Tensor:
        mean = self.mean.to(img.device, img.dtype, non_blocking=True)
        std = self.std.to(img.device, img.dtype, non_blocking=True)
        return img.sub(mean).div(std)


class Compose(nn.Module):
    def __init__(self, transforms) -> None:
        super().__init__()
        self.steps = list(transforms)

    def forward(self, img: torch.Tensor) -> torch.Tensor:
        out = img
        for step in self.steps:
            out = step(out)
        return out


def to_float_image(img: np.ndarray) -> torch.Tensor:
    return torch.as_tensor(img).movedim(-1, 0).to(dtype=torch.float32).mul(1.0 / 255.0)
