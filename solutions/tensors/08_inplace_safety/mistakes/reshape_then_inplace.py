"""Flattens before updating: `x.reshape(-1).mul_(scale).add_(shift); return x`.

For a contiguous x, reshape(-1) is a view and the update lands in x. For a non-contiguous view
(a column block of a matrix) reshape has to copy, the update goes into the copy, and neither x nor
its parent changes.

Caught by: test_inplace_on_noncontiguous_view
"""
from __future__ import annotations

import torch
from torch import Tensor


def scale_shift_(x: Tensor, scale: float, shift: float) -> Tensor:
    x.reshape(-1).mul_(scale).add_(shift)
    return x


def scale_shift(x: Tensor, scale: float, shift: float) -> Tensor:
    return x * scale + shift


def sigmoid_then_scale(x: Tensor, scale: float) -> Tensor:
    return torch.sigmoid(x) * scale
