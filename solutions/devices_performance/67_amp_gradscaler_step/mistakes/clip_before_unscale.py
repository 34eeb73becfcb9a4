"""Clips the gradients first and unscales them afterwards: the clip sees gradients 65536 times too
large, so an inactive max_norm becomes active and the real update shrinks by the scale.

Caught by: test_update_matches_fp32, test_update_matches_fp32_cuda
"""
from __future__ import annotations
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.data import DataLoader, Dataset, IterableDataset, Subset, WeightedRandomSampler


def amp_train_step(model: nn.Module, x: Tensor, y: Tensor, loss_fn: Callable[[Tensor, Tensor], Tensor],
                   optimizer: torch.optim.Optimizer, scaler: Any, max_norm: float | None = None,
                   dtype: torch.dtype = torch.float16) -> float:
    """zero_grad; forward+loss under torch.autocast(x.device.type, dtype); scaler.scale(loss).backward(); if max_norm: scaler.unscale_(optimizer) then clip; scaler.step(optimizer); scaler.update(); return loss.item()."""
    optimizer.zero_grad()
    with torch.autocast(device_type=x.device.type, dtype=dtype):
        loss = loss_fn(model(x), y)
    scaler.scale(loss).backward()
    if max_norm is not None:
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        scaler.unscale_(optimizer)
    scaler.step(optimizer)
    scaler.update()
    return loss.item()
