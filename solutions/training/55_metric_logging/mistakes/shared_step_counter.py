"""One global_step counter for everything: log_epoch also advances it, so the train-step points
after an epoch is logged skip a step (0, 1, 3, ...).

Caught by: test_train_step_tags
"""
from __future__ import annotations

from typing import Any

import torch
from torch import Tensor


class MetricLogger:
    def __init__(self, writer: Any) -> None:
        self.writer = writer
        self.global_step = 0
        self.closed = False

    def log_train_step(self, loss: Tensor, optimizer: torch.optim.Optimizer) -> None:
        self.writer.add_scalar("Loss/train_step", loss.item(), self.global_step)
        for i, group in enumerate(optimizer.param_groups):
            self.writer.add_scalar(f"LR/group{i}", float(group["lr"]), self.global_step)
        self.global_step += 1

    def log_epoch(self, epoch: int, train_loss: float, val_loss: float, val_acc: float) -> None:
        self.writer.add_scalar("Loss/train", float(train_loss), epoch)
        self.writer.add_scalar("Loss/val", float(val_loss), epoch)
        self.writer.add_scalar("Accuracy/val", float(val_acc), epoch)
        self.global_step += 1

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.writer.flush()
            self.writer.close()
