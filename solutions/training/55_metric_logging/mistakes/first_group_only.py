"""Logs only the first param group's learning rate (`optimizer.param_groups[0]['lr']`), as in the
usual one-group example: a backbone/head split loses the other curves.

Caught by: test_train_step_tags
"""
from __future__ import annotations

from typing import Any

import torch
from torch import Tensor


class MetricLogger:
    def __init__(self, writer: Any) -> None:
        self.writer = writer
        self.step = 0
        self.closed = False

    def log_train_step(self, loss: Tensor, optimizer: torch.optim.Optimizer) -> None:
        self.writer.add_scalar("Loss/train_step", loss.item(), self.step)
        self.writer.add_scalar("LR/group0", float(optimizer.param_groups[0]["lr"]), self.step)
        self.step += 1

    def log_epoch(self, epoch: int, train_loss: float, val_loss: float, val_acc: float) -> None:
        for tag, value in zip(("Loss/train", "Loss/val", "Accuracy/val"), (train_loss, val_loss, val_acc)):
            self.writer.add_scalar(tag, float(value), epoch)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.writer.flush()
            self.writer.close()
