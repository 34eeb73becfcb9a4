"""A correct alternative: augmented assignment (in place on tensors), functional ops, a hand-written sigmoid."""
from __future__ import annotations

import torch
from torch import Tensor


def scale_shift_(x: Tensor, scale: float, shift: float) -> Tensor:
    """In place: x <- x*scale + shift; returns x itself; must NOT suppress autograd errors on leaves requiring grad."""
    x *= scale  # Tensor.__imul__ is mul_: same object, same memory
    x += shift
    return x


def scale_shift(x: Tensor, scale: float, shift: float) -> Tensor:
    """Out-of-place version; never modifies x."""
    return torch.add(torch.mul(x, scale), shift)


def sigmoid_then_scale(x: Tensor, scale: float) -> Tensor:
    """sigmoid(x) * scale, written so that backward() works (do not modify sigmoid's saved output in place)."""
    return scale / (1 + torch.exp(-x))
