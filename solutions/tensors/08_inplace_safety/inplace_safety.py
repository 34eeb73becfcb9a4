"""Reference solution for 08_inplace_safety."""
from __future__ import annotations

import torch
from torch import Tensor


def scale_shift_(x: Tensor, scale: float, shift: float) -> Tensor:
    """In place: x <- x*scale + shift; returns x itself; must NOT suppress autograd errors on leaves requiring grad."""
    # In-place methods write into x's own memory (views included) and return x itself. On a leaf
    # that requires grad autograd raises here, which is what we want: no no_grad, no .data.
    return x.mul_(scale).add_(shift)


def scale_shift(x: Tensor, scale: float, shift: float) -> Tensor:
    """Out-of-place version; never modifies x."""
    return x * scale + shift


def sigmoid_then_scale(x: Tensor, scale: float) -> Tensor:
    """sigmoid(x) * scale, written so that backward() works (do not modify sigmoid's saved output in place)."""
    # sigmoid's backward reuses its output s (grad = s * (1 - s)); an in-place `s *= scale` would
    # bump s's version counter and make backward() fail. Out of place, a new tensor holds the product.
    return torch.sigmoid(x) * scale
