from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def adam_update(param: Tensor, grad: Tensor, state: dict[str, Any], lr: float, betas: tuple[float, float] = (0.9, 0.999),
                eps: float = 1e-8, weight_decay: float = 0.0, decoupled: bool = False) -> None:
    """One in-place step: Adam with L2-in-gradient (decoupled=False) or AdamW (decoupled=True: param *= 1 - lr*wd first); state keys 'step', 'exp_avg', 'exp_avg_sq' created lazily."""
    raise NotImplementedError
