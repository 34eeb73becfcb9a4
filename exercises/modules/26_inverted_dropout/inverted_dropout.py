from __future__ import annotations

from torch import Tensor, nn


class InvertedDropout(nn.Module):
    """Dropout with drop probability p that behaves like PyTorch's in train and eval mode."""

    def __init__(self, p: float = 0.5) -> None:
        """Store p, which must lie in [0, 1]."""
        raise NotImplementedError

    def forward(self, x: Tensor) -> Tensor:
        """Return x with elements dropped at random in train mode, or x's values in eval mode."""
        raise NotImplementedError
