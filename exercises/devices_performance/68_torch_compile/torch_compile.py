from __future__ import annotations
from collections.abc import Callable
from torch import Tensor, nn


class CompileFriendlyBlock(nn.Module):
    """A residual LayerNorm, Linear, GELU, Linear block whose outputs are clamped to [-clip, clip]."""

    def __init__(self, dim: int, hidden: int, clip: float = 10.0) -> None:
        """Create the block's layers for inputs of width dim."""
        raise NotImplementedError

    def forward(self, x: Tensor) -> Tensor:
        """Return the clamped residual output for x, of the same shape."""
        raise NotImplementedError


def compile_model(model: nn.Module, backend: str | Callable = "inductor", dynamic: bool | None = True) -> nn.Module:
    """Return model compiled with the given backend and dynamic-shape setting, failing loudly on anything it cannot compile."""
    raise NotImplementedError


def clean_state_dict(model: nn.Module) -> dict[str, Tensor]:
    """Return the state dict of model as the uncompiled module would give it."""
    raise NotImplementedError
