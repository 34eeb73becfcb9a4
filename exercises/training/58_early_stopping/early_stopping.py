from __future__ import annotations

from typing import Literal

from torch import nn


class EarlyStopping:
    """Tracks a validation metric across epochs, says when to stop, and keeps the best epoch's weights."""
    best_score: float | None
    best_epoch: int | None

    def __init__(self, patience: int = 5, min_delta: float = 0.0, mode: Literal["min", "max"] = "min") -> None:
        raise NotImplementedError

    def step(self, metric: float, model: nn.Module) -> bool:
        """Records this epoch's metric and returns True when training should stop."""
        raise NotImplementedError

    def restore_best(self, model: nn.Module) -> None:
        """Loads the weights of the best epoch back into the model in place."""
        raise NotImplementedError
