from __future__ import annotations

from torch import Tensor, nn


class FunctionalNet(nn.Module):
    """Two Linear layers with a GELU and dropout between them, applied as function calls."""

    def __init__(self, in_features: int, hidden: int, out_features: int, p: float = 0.5) -> None:
        """Build self.fc1 and self.fc2 and keep the dropout probability p."""
        raise NotImplementedError

    def forward(self, x: Tensor) -> Tensor:
        """Return the output for x of shape (..., in_features), shaped (..., out_features)."""
        raise NotImplementedError
