"""Writes `x = x * scale + shift; return x` and calls it in place.

Rebinding the local name creates a new tensor; the caller's tensor is untouched, so the function is
out of place in disguise: the result is not the object passed in, and no error is raised for leaves
that require grad.

Caught by: test_inplace_same_object, test_inplace_on_noncontiguous_view, test_leaf_requires_grad_raises
"""
from __future__ import annotations

import torch
from torch import Tensor


def scale_shift_(x: Tensor, scale: float, shift: float) -> Tensor:
    x = x * scale + shift
    return x


def scale_shift(x: Tensor, scale: float, shift: float) -> Tensor:
    return x * scale + shift


def sigmoid_then_scale(x: Tensor, scale: float) -> Tensor:
    return torch.sigmoid(x) * scale
