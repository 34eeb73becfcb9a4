from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def make_warmup_cosine(optimizer: torch.optim.Optimizer, warmup_steps: int, total_steps: int, min_lr_ratio: float = 0.0) -> torch.optim.lr_scheduler.LRScheduler:
    """Scheduler implementing the contract above per param group; ValueError if total_steps <= warmup_steps."""
    raise NotImplementedError


def run_steps(optimizer: torch.optim.Optimizer, scheduler: torch.optim.lr_scheduler.LRScheduler, closure: Callable[[], Tensor], n_steps: int) -> list[float]:
    """n_steps of (zero_grad, closure().backward(), optimizer.step(), scheduler.step()); return the group-0 lr used by each optimizer step."""
    raise NotImplementedError
