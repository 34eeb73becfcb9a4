"""Wraps the in-place update in `torch.no_grad()` so that it "also works on parameters".

On plain tensors it is right, but on a leaf that requires grad it silently rewrites the tensor
behind autograd's back instead of raising; the docstring forbids suppressing that error.

Caught by: test_leaf_requires_grad_raises
"""
from __future__ import annotations

import torch
from torch import Tensor


def scale_shift_(x: Tensor, scale: float, shift: float) -> Tensor:
    with torch.no_grad():
        x.mul_(scale).add_(shift)
    return x


def scale_shift(x: Tensor, scale: float, shift: float) -> Tensor:
    return x * scale + shift


def sigmoid_then_scale(x: Tensor, scale: float) -> Tensor:
    return torch.sigmoid(x) * scale
