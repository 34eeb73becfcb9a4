from __future__ import annotations

from torch import Tensor


class RunningMean:
    """Sample-weighted running mean of per-batch losses, reported by compute()."""

    def update(self, batch_loss: Tensor, n: int) -> None:
        """Add a batch of n samples whose mean loss is batch_loss."""
        raise NotImplementedError

    def compute(self) -> float:
        """Return the mean loss per sample since construction or the last reset, as a Python float."""
        raise NotImplementedError

    def reset(self) -> None:
        """Forget every batch seen so far."""
        raise NotImplementedError
