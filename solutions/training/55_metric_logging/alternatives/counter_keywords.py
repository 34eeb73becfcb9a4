"""An itertools.count for the train steps, keyword calls with SummaryWriter's parameter names,
and the writer dropped after close()."""
from __future__ import annotations

import itertools
from typing import Any

import torch
from torch import Tensor


class MetricLogger:
    def __init__(self, writer: Any) -> None:
        self._writer = writer
        self._steps = itertools.count()

    def _scalar(self, tag: str, value: Any, step: int) -> None:
        self._writer.add_scalar(tag=tag, scalar_value=torch.as_tensor(value).detach().item(), global_step=step)

    def log_train_step(self, loss: Tensor, optimizer: torch.optim.Optimizer) -> None:
        step = next(self._steps)
        self._scalar("Loss/train_step", loss, step)
        for i, group in enumerate(optimizer.param_groups):
            self._scalar(f"LR/group{i}", group["lr"], step)

    def log_epoch(self, epoch: int, train_loss: float, val_loss: float, val_acc: float) -> None:
        self._scalar("Loss/train", train_loss, epoch)
        self._scalar("Loss/val", val_loss, epoch)
        self._scalar("Accuracy/val", val_acc, epoch)

    def close(self) -> None:
        writer, self._writer = self._writer, None
        if writer is None:
            return
        try:
            writer.flush()
        finally:
            writer.close()
