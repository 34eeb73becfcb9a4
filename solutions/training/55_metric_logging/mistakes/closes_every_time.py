"""close() flushes and closes the writer on every call: a second close() (a `finally` plus an exit
handler) reaches a writer that is already closed.

Caught by: test_close_once
"""
from __future__ import annotations

from typing import Any

import torch
from torch import Tensor


class MetricLogger:
    def __init__(self, writer: Any) -> None:
        self.writer = writer
        self.step = 0

    def log_train_step(self, loss: Tensor, optimizer: torch.optim.Optimizer) -> None:
        self.writer.add_scalar("Loss/train_step", loss.item(), self.step)
        for i, group in enumerate(optimizer.param_groups):
            self.writer.add_scalar(f"LR/group{i}", float(group["lr"]), self.step)
        self.step += 1

    def log_epoch(self, epoch: int, train_loss: float, val_loss: float, val_acc: float) -> None:
        for tag, value in zip(("Loss/train", "Loss/val", "Accuracy/val"), (train_loss, val_loss, val_acc)):
            self.writer.add_scalar(tag, float(value), epoch)

    def close(self) -> None:
        self.writer.flush()
        self.writer.close()
