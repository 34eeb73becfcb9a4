from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


class MetricLogger:
    """Logs through any writer exposing add_scalar(tag, scalar_value, global_step), flush(), close() (e.g. torch.utils.tensorboard.SummaryWriter)."""

    def __init__(self, writer: Any) -> None:
        raise NotImplementedError

    def log_train_step(self, loss: Tensor, optimizer: torch.optim.Optimizer) -> None:
        """Write 'Loss/train_step' and 'LR/group{i}' for every param group at the next global step (0, 1, 2, ...)."""
        raise NotImplementedError

    def log_epoch(self, epoch: int, train_loss: float, val_loss: float, val_acc: float) -> None:
        """Write 'Loss/train', 'Loss/val', 'Accuracy/val' at global_step=epoch."""
        raise NotImplementedError

    def close(self) -> None:
        """Flush and close the writer once (idempotent)."""
        raise NotImplementedError
