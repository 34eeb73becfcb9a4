"""The checkpoint is a `collections.OrderedDict` (as `state_dict()`s are): `torch.load(...,
weights_only=True)` returns an `OrderedDict`, which is a `dict`, what the contract asks for
(issue 42: a check compared the type's name with "dict").
"""
from __future__ import annotations

import os
from collections import OrderedDict
from typing import Any

import torch
from torch import nn


def save_checkpoint(path: str | os.PathLike, model: nn.Module, optimizer: torch.optim.Optimizer, scheduler: Any | None,
                    epoch: int, extra: dict | None = None) -> None:
    """One file with model/optimizer/scheduler state_dicts, epoch, torch CPU RNG state (+ all CUDA RNG states if available) and extra; loadable with weights_only=True."""
    checkpoint = OrderedDict({
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "scheduler": scheduler.state_dict() if scheduler is not None else None,
        "epoch": int(epoch),
        "rng_cpu": torch.get_rng_state(),
        "rng_cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else [],
        "extra": extra if extra is not None else {},
    })
    torch.save(checkpoint, path)  # an OrderedDict: a dict, as the contract asks


def load_checkpoint(path: str | os.PathLike, model: nn.Module, optimizer: torch.optim.Optimizer | None = None,
                    scheduler: Any | None = None, map_location: str | torch.device = "cpu") -> int:
    """Restore everything save_checkpoint stored (weights; optimizer/scheduler/RNG when given) and return the next epoch to run."""
    checkpoint = torch.load(path, map_location=map_location, weights_only=True)
    model.load_state_dict(checkpoint["model"])
    if optimizer is not None:
        optimizer.load_state_dict(checkpoint["optimizer"])
    if scheduler is not None and checkpoint["scheduler"] is not None:
        scheduler.load_state_dict(checkpoint["scheduler"])
    torch.set_rng_state(checkpoint["rng_cpu"].cpu())
    if checkpoint["rng_cuda"] and torch.cuda.is_available():
        torch.cuda.set_rng_state_all([state.cpu() for state in checkpoint["rng_cuda"]])
    return checkpoint["epoch"] + 1
