from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


class MomentumSGD(torch.optim.Optimizer):
    """Reproduces torch.optim.SGD(lr, momentum, dampening=0, weight_decay, nesterov) exactly; state per param: 'momentum_buffer'."""
    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float, momentum: float = 0.0,
                 weight_decay: float = 0.0, nesterov: bool = False) -> None:
        raise NotImplementedError

    @torch.no_grad()
    def step(self, closure: Callable[[], Tensor] | None = None) -> Tensor | None:
        raise NotImplementedError
