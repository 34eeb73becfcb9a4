"""A correct alternative: compute out of place, copy_ the result back; clone before in-place work."""
from __future__ import annotations

import torch
from torch import Tensor


def scale_shift_(x: Tensor, scale: float, shift: float) -> Tensor:
    """In place: x <- x*scale + shift; returns x itself; must NOT suppress autograd errors on leaves requiring grad."""
    # copy_ writes into x's own memory (through a view too) and returns x; autograd still guards leaves.
    return x.copy_(x * scale + shift)


def scale_shift(x: Tensor, scale: float, shift: float) -> Tensor:
    """Out-of-place version; never modifies x."""
    return x.clone().mul_(scale).add_(shift)


def sigmoid_then_scale(x: Tensor, scale: float) -> Tensor:
    """sigmoid(x) * scale, written so that backward() works (do not modify sigmoid's saved output in place)."""
    # the clone is a new tensor, so scaling it in place leaves sigmoid's saved output alone
    return torch.sigmoid(x).clone().mul_(scale)
