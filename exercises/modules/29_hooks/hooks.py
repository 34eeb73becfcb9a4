from __future__ import annotations

from collections.abc import Callable

from torch import Tensor, nn


def capture_activations(model: nn.Module, x: Tensor, layer_names: list[str]) -> dict[str, Tensor]:
    """Return the outputs of the named submodules in one forward of model on x, detached from the graph."""
    raise NotImplementedError


def activation_grad_norms(model: nn.Module, x: Tensor, loss_fn: Callable[[Tensor], Tensor], layer_names: list[str]) -> dict[str, float]:
    """Return, for each named submodule, the L2 norm of the loss's gradient with respect to its output."""
    raise NotImplementedError
