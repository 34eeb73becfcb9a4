"""Hands the loss tensor and the raw `param_groups[i]['lr']` to add_scalar: SummaryWriter accepts
tensors, so the curves look right, but the logger passes a tensor with a graph into the writer (a
host sync per scalar on a GPU) and a tensor lr stays a tensor.

Caught by: test_scalar_values_are_python_floats
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
        self.writer.add_scalar("Loss/train_step", loss, self.step)
        for i, group in enumerate(optimizer.param_groups):
            self.writer.add_scalar(f"LR/group{i}", group["lr"], self.step)
        self.step += 1

    def log_epoch(self, epoch: int, train_loss: float, val_loss: float, val_acc: float) -> None:
        self.writer.add_scalar("Loss/train", train_loss, epoch)
        self.writer.add_scalar("Loss/val", val_loss, epoch)
        self.writer.add_scalar("Accuracy/val", val_acc, epoch)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.writer.flush()
            self.writer.close()
