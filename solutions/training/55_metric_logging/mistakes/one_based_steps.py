"""Increments the step counter before writing, so the first train step lands at global_step 1
(and the train-step curve is shifted against the epoch curves).

Caught by: test_train_step_tags, test_no_graph_held, test_tensorboard_event_file
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
        self.step += 1
        self.writer.add_scalar("Loss/train_step", loss.item(), self.step)
        for i, group in enumerate(optimizer.param_groups):
            self.writer.add_scalar(f"LR/group{i}", float(group["lr"]), self.step)

    def log_epoch(self, epoch: int, train_loss: float, val_loss: float, val_acc: float) -> None:
        for tag, value in zip(("Loss/train", "Loss/val", "Accuracy/val"), (train_loss, val_loss, val_acc)):
            self.writer.add_scalar(tag, float(value), epoch)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.writer.flush()
            self.writer.close()
