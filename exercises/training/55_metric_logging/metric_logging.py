from __future__ import annotations

from typing import Any

import torch
from torch import Tensor


class MetricLogger:
    """Writes training metrics as scalars through a writer with add_scalar, flush and close methods."""

    def __init__(self, writer: Any) -> None:
        raise NotImplementedError

    def log_train_step(self, loss: Tensor, optimizer: torch.optim.Optimizer) -> None:
        """Writes the step's loss and each param group's learning rate at the next train step."""
        raise NotImplementedError

    def log_epoch(self, epoch: int, train_loss: float, val_loss: float, val_acc: float) -> None:
        """Writes the epoch's train loss, validation loss and validation accuracy at that epoch."""
        raise NotImplementedError

    def close(self) -> None:
        """Finishes writing and closes the writer, once."""
        raise NotImplementedError
