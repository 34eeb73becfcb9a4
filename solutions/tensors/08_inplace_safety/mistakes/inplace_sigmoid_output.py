"""Saves an allocation by scaling sigmoid's output in place (`s.mul_(scale)`).

The forward values are right, but sigmoid saved its output s for backward (its derivative is
s * (1 - s)); the in-place multiply bumps s's version counter and backward() raises "one of the
variables needed for gradient computation has been modified by an inplace operation".

Caught by: test_sigmoid_backward, test_sigmoid_then_scale_example
"""
from __future__ import annotations

import torch
from torch import Tensor


def scale_shift_(x: Tensor, scale: float, shift: float) -> Tensor:
    return x.mul_(scale).add_(shift)


def scale_shift(x: Tensor, scale: float, shift: float) -> Tensor:
    return x * scale + shift


def sigmoid_then_scale(x: Tensor, scale: float) -> Tensor:
    s = torch.sigmoid(x)
    s.mul_(scale)
    return s
