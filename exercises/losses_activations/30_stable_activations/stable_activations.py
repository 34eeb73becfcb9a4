from __future__ import annotations

from torch import Tensor


def softmax(x: Tensor, dim: int) -> Tensor:
    """Return the softmax of x along dim."""
    raise NotImplementedError


def log_softmax(x: Tensor, dim: int) -> Tensor:
    """Return the logarithm of the softmax of x along dim."""
    raise NotImplementedError


def gelu_tanh(x: Tensor) -> Tensor:
    """Return the GELU of x in its tanh approximation."""
    raise NotImplementedError


def silu(x: Tensor) -> Tensor:
    """Return the SiLU of x, x times its logistic sigmoid."""
    raise NotImplementedError


def leaky_relu(x: Tensor, negative_slope: float = 0.01) -> Tensor:
    """Return x where it is non-negative and negative_slope times x elsewhere."""
    raise NotImplementedError
