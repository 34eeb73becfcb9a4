"""Clears the grads by hand, clips the optimizer's own parameters with the two-stage
get_total_norm / clip_grads_with_norm_ API, and uses torch.amp.autocast with keywords.
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
from torch.nn.utils import clip_grads_with_norm_, get_total_norm


def amp_train_step(model: nn.Module, x: Tensor, y: Tensor, loss_fn: Callable[[Tensor, Tensor], Tensor],
                   optimizer: torch.optim.Optimizer, scaler: Any, max_norm: float | None = None,
                   dtype: torch.dtype = torch.float16) -> float:
    """zero_grad; forward+loss under torch.autocast(x.device.type, dtype); scaler.scale(loss).backward(); if max_norm: scaler.unscale_(optimizer) then clip; scaler.step(optimizer); scaler.update(); return loss.item()."""
    params = [p for group in optimizer.param_groups for p in group["params"]]
    for p in params:
        p.grad = None
    with torch.amp.autocast(device_type=x.device.type, dtype=dtype, enabled=True):
        prediction = model(x)
        loss = loss_fn(prediction, y)
    scaled = scaler.scale(loss)
    scaled.backward()
    if max_norm is not None:
        scaler.unscale_(optimizer)
        grads = [p.grad for p in params if p.grad is not None]
        total = get_total_norm(grads)
        clip_grads_with_norm_(params, max_norm, total)
    scaler.step(optimizer)
    scaler.update()
    return float(loss.detach())
