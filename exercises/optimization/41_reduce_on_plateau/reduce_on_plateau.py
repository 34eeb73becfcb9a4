from __future__ import annotations

from typing import Literal

import torch
from torch import Tensor


class PlateauLR:
    """A learning-rate scheduler that lowers the lrs of an optimizer when a monitored metric stops improving. It gives the same lrs as torch's ReduceLROnPlateau with a relative threshold."""
    def __init__(self, optimizer: torch.optim.Optimizer, mode: Literal["min", "max"] = "min", factor: float = 0.1, patience: int = 10,
                 threshold: float = 1e-4, cooldown: int = 0, min_lr: float = 0.0) -> None:
        raise NotImplementedError

    def step(self, metric: float | Tensor) -> None:
        """Records one epoch's metric and updates the lrs of the optimizer's param groups."""
        raise NotImplementedError

    def state_dict(self) -> dict:
        """Returns the scheduler's state, without the optimizer."""
        raise NotImplementedError

    def load_state_dict(self, state: dict) -> None:
        """Restores a state returned by state_dict."""
        raise NotImplementedError
