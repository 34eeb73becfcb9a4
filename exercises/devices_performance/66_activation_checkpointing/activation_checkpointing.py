from __future__ import annotations
from torch import Tensor, nn


class CheckpointedMLP(nn.Module):
    """A stack of depth Linear, GELU, Dropout blocks that trades recomputation for activation memory during training."""

    def __init__(self, width: int, depth: int, p: float = 0.1, use_checkpoint: bool = True) -> None:
        """Build the blocks and remember whether to checkpoint them."""
        raise NotImplementedError

    def forward(self, x: Tensor) -> Tensor:
        """Return the blocks applied to x in order."""
        raise NotImplementedError
