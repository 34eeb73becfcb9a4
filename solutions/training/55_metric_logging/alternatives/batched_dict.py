"""Builds a dict of scalars per call and writes it in one loop, positional arguments, float() of
the loss, a step attribute read before it is bumped."""
from __future__ import annotations

from typing import Any

import torch
from torch import Tensor


class MetricLogger:
    __slots__ = ("writer", "train_steps", "is_open")

    def __init__(self, writer: Any) -> None:
        self.writer = writer
        self.train_steps = 0
        self.is_open = True

    def _write(self, scalars: dict[str, float], step: int) -> None:
        for tag, value in scalars.items():
            self.writer.add_scalar(tag, value, step)

    def log_train_step(self, loss: Tensor, optimizer: torch.optim.Optimizer) -> None:
        scalars = {"Loss/train_step": float(loss.detach())}
        scalars.update({f"LR/group{i}": float(g["lr"]) for i, g in enumerate(optimizer.param_groups)})
        self._write(scalars, self.train_steps)
        self.train_steps += 1

    def log_epoch(self, epoch: int, train_loss: float, val_loss: float, val_acc: float) -> None:
        self._write({"Loss/train": float(train_loss), "Loss/val": float(val_loss), "Accuracy/val": float(val_acc)},
                    int(epoch))

    def close(self) -> None:
        if self.is_open:
            self.is_open = False
            self.writer.flush()
            self.writer.close()
