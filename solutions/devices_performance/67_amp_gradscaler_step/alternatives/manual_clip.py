"""model.zero_grad, a device type read from the torch.device, and a clip written out by hand
(the total norm, then one in-place scale of every gradient when it exceeds max_norm).
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
    model.zero_grad(set_to_none=False)
    device_type = torch.device(x.device).type
    with torch.autocast(device_type, dtype):
        loss = loss_fn(model(x), y)
    scaler.scale(loss).backward()
    if max_norm:
        scaler.unscale_(optimizer)
        grads = [p.grad for p in model.parameters() if p.grad is not None]
        total = torch.sqrt(sum((g.detach().float() ** 2).sum() for g in grads))
        factor = torch.clamp(max_norm / (total + 1e-6), max=1.0)
        for g in grads:
            g.mul_(factor.to(g.dtype))
    scaler.step(optimizer)
    scaler.update()
    value = loss.detach().cpu().item()
    return value
