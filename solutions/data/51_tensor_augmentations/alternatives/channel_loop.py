"""Python-float arithmetic per channel (no mean/std tensors at all, so nothing to copy to a
device), an index-reversal flip with a Bernoulli draw, functools.reduce for Compose, and an
explicit transpose copy in NumPy for to_float_image."""
from __future__ import annotations

import functools

import numpy as np
import torch


class RandomHFlip:
    def __init__(self, p=0.5, generator=None):
        self.p = p
        self.generator = generator

    def __call__(self, img):
        coin = torch.bernoulli(torch.tensor(float(self.p)), generator=self.generator)
        if not bool(coin):
            return img
        width = img.shape[-1]
        return img.index_select(-1, torch.arange(width - 1, -1, -1, device=img.device))


class Normalize:
    def __init__(self, mean, std):
        self.stats = [(float(m), float(s)) for m, s in zip(mean, std)]

    def __call__(self, img):
        channels = img.unbind(-3)
        return torch.stack([(ch - m) / s for ch, (m, s) in zip(channels, self.stats)], dim=-3)


class Compose:
    def __init__(self, transforms):
        self.transforms = tuple(transforms)

    def __call__(self, img):
        return functools.reduce(lambda acc, t: t(acc), self.transforms, img)


def to_float_image(img):
    chw = np.ascontiguousarray(np.transpose(img, (2, 0, 1))).astype(np.float32) / np.float32(255)
    return torch.from_numpy(chw)
