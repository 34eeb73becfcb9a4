"""Updates "in place" by assigning `x.data = x * scale + shift`.

It returns x itself and the values look right, but `.data =` swaps in a freshly allocated tensor:
x's memory (and data_ptr) change, a view stops sharing memory with its parent so the parent is never
updated, the version counter is not bumped, and autograd's leaf check is bypassed.

Caught by: test_inplace_same_object, test_inplace_on_noncontiguous_view, test_leaf_requires_grad_raises
"""
from __future__ import annotations

import torch
from torch import Tensor


def scale_shift_(x: Tensor, scale: float, shift: float) -> Tensor:
    x.data = x.data * scale + shift
    return x


def scale_shift(x: Tensor, scale: float, shift: float) -> Tensor:
    return x * scale + shift


def sigmoid_then_scale(x: Tensor, scale: float) -> Tensor:
    return torch.sigmoid(x) * scale
