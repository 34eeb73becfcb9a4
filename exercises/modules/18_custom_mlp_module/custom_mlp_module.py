from __future__ import annotations

from torch import Tensor, nn


class MLP(nn.Module):
    """A multilayer perceptron: hidden Linear layers with ReLU and dropout, then an output Linear."""

    def __init__(self, in_features: int, hidden: list[int], out_features: int, dropout: float = 0.0) -> None:
        """Build the layers named in the README (self.layers, self.head)."""
        raise NotImplementedError

    def forward(self, x: Tensor) -> Tensor:
        """Return the output for x of shape (*, in_features), shaped (*, out_features)."""
        raise NotImplementedError
