from __future__ import annotations

import math

import torch
from torch import Tensor

_GELU_C = math.sqrt(2.0 / math.pi)


def softmax(x: Tensor, dim: int) -> Tensor:
    """Numerically stable softmax along dim."""
    shifted = x - x.amax(dim=dim, keepdim=True)
    e = torch.exp(shifted)
    return e / e.sum(dim=dim, keepdim=True)


def log_softmax(x: Tensor, dim: int) -> Tensor:
    """Numerically stable log-softmax along dim (finite for very negative logits)."""
    shifted = x - x.amax(dim=dim, keepdim=True)
    return shifted - torch.log(torch.exp(shifted).sum(dim=dim, keepdim=True))


def gelu_tanh(x: Tensor) -> Tensor:
    """GELU, tanh approximation (== F.gelu(x, approximate='tanh'))."""
    return 0.5 * x * (1.0 + torch.tanh(_GELU_C * (x + 0.044715 * x * x * x)))


def silu(x: Tensor) -> Tensor:
    """x * sigmoid(x)."""
    return x * torch.sigmoid(x)


def leaky_relu(x: Tensor, negative_slope: float = 0.01) -> Tensor:
    """x if x >= 0 else negative_slope * x."""
    return torch.where(x >= 0, x, x * negative_slope)
