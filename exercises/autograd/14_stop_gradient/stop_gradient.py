from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def td_loss(q_pred: Tensor, reward: Tensor, next_q: Tensor, gamma: float) -> Tensor:
    """mean((q_pred - (reward + gamma * next_q))**2) with NO gradient flowing into next_q."""
    raise NotImplementedError


def ema_update_(target: nn.Module, online: nn.Module, tau: float) -> None:
    """In place, without autograd history: p_t <- (1 - tau) * p_t + tau * p_o for all parameters; buffers are copied from online."""
    raise NotImplementedError
