from __future__ import annotations

from typing import Literal

from torch import Tensor, nn


def layer_grad_norms(model: nn.Module) -> dict[str, float]:
    """Returns the L2 norm of the gradient of every parameter whose name ends in weight and that has a gradient, keyed by name."""
    raise NotImplementedError


def make_deep_mlp(depth: int, width: int, activation: Literal["sigmoid", "relu"], residual: bool, init: Literal["default", "kaiming"]) -> nn.Module:
    """Returns an MLP of depth blocks and a head, with the layout, forward and initialisation the README describes."""
    raise NotImplementedError


def activation_stds(model: nn.Module, x: Tensor) -> list[float]:
    """Returns the standard deviation of each block's output on input x. The model keeps exactly the hooks it had before."""
    raise NotImplementedError
