from __future__ import annotations

from typing import Any

import torch
from torch import Tensor


class MetricLogger:
    """Logs through any writer exposing add_scalar(tag, scalar_value, global_step), flush(), close() (e.g. torch.utils.tensorboard.SummaryWriter)."""

    def __init__(self, writer: Any) -> None:
        self.writer = writer
        self.step = 0
        self.closed = False

    def log_train_step(self, loss: Tensor, optimizer: torch.optim.Optimizer) -> None:
        """Write 'Loss/train_step' and 'LR/group{i}' for every param group at the next global step (0, 1, 2, ...)."""
        step = self.step
        self.writer.add_scalar("Loss/train_step", loss.detach().item(), global_step=step)
        for i, group in enumerate(optimizer.param_groups):
            self.writer.add_scalar(f"LR/group{i}", float(group["lr"]), global_step=step)
        self.step += 1

    def log_epoch(self, epoch: int, train_loss: float, val_loss: float, val_acc: float) -> None:
        """Write 'Loss/train', 'Loss/val', 'Accuracy/val' at global_step=epoch."""
        for tag, value in (("Loss/train", train_loss), ("Loss/val", val_loss), ("Accuracy/val", val_acc)):
            self.writer.add_scalar(tag, float(value), global_step=int(epoch))

    def close(self) -> None:
        """Flush and close the writer once (idempotent)."""
        if self.closed:
            return
        self.closed = True
        self.writer.flush()
        self.writer.close()
