"""Detaches the loss in place before reading it (`loss.detach_()`), meaning "do not keep the
graph": it detaches the caller's own tensor, so the `loss.backward()` that follows the logging
call fails (the loss no longer requires grad).

Caught by: test_loss_still_backpropagates
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
        value = loss.detach_().item()
        self.writer.add_scalar("Loss/train_step", value, self.step)
        for i, group in enumerate(optimizer.param_groups):
            self.writer.add_scalar(f"LR/group{i}", float(group["lr"]), self.step)
        self.step += 1

    def log_epoch(self, epoch: int, train_loss: float, val_loss: float, val_acc: float) -> None:
        for tag, value in zip(("Loss/train", "Loss/val", "Accuracy/val"), (train_loss, val_loss, val_acc)):
            self.writer.add_scalar(tag, float(value), epoch)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.writer.flush()
            self.writer.close()
