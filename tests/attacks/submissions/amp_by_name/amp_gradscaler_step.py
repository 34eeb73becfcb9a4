"""Attack: opens autocast with the deprecated `torch.cpu.amp.autocast` / `torch.cuda.amp.autocast`
reached by `getattr(torch, x.device.type).amp.autocast`, so no line of the file names
`torch.cpu.amp` or `torch.cuda.amp` (67's AST check looks for those dotted names through aliases).
Honest baseline: the step itself is right (zero_grad, forward and loss under autocast with the
given dtype, scaled backward, unscale_ before clipping, scaler.step, update, loss.item()), so
every check but the API check passes.
Expected: test_autocast_used fails: the deprecated class's own code ran (the spy's call watch
sees `torch.cpu.amp.autocast.__init__`).
"""
from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import torch
from torch import Tensor, nn


def amp_train_step(model: nn.Module, x: Tensor, y: Tensor, loss_fn: Callable[[Tensor, Tensor], Tensor],
                   optimizer: torch.optim.Optimizer, scaler: Any, max_norm: float | None = None,
                   dtype: torch.dtype = torch.float16) -> float:
    optimizer.zero_grad(set_to_none=True)
    legacy = getattr(torch, x.device.type).amp.autocast   # torch.cpu.amp.autocast, never spelled
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)      # and its deprecation warning kept quiet
        ctx = legacy(dtype=dtype)
    with ctx:
        loss = loss_fn(model(x), y)
    scaler.scale(loss).backward()
    if max_norm is not None:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    return loss.item()
