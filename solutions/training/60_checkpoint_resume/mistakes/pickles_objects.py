"""Saves the optimizer and scheduler objects themselves ("the whole thing, to be safe") and loads
with weights_only=False to make that work: the file names the optimizer's and the scheduler's
classes, which the unpickler must import and call, so torch.load(weights_only=True) refuses it
(and a LambdaLR holding a lambda cannot even be saved: a lambda cannot be pickled); and the loader
runs whatever a file names.

Caught by: test_file_loads_weights_only, test_refuses_unsafe_file
"""
from __future__ import annotations

import os
from typing import Any

import torch
from torch import nn


def save_checkpoint(path: str | os.PathLike, model: nn.Module, optimizer: torch.optim.Optimizer, scheduler: Any | None,
                    epoch: int, extra: dict | None = None) -> None:
    checkpoint = {
        "model": model.state_dict(),
        "optimizer": optimizer,
        "scheduler": scheduler,
        "epoch": int(epoch),
        "rng_cpu": torch.get_rng_state(),
        "rng_cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else [],
        "extra": extra if extra is not None else {},
    }
    torch.save(checkpoint, path)


def load_checkpoint(path: str | os.PathLike, model: nn.Module, optimizer: torch.optim.Optimizer | None = None,
                    scheduler: Any | None = None, map_location: str | torch.device = "cpu") -> int:
    checkpoint = torch.load(path, map_location=map_location, weights_only=False)
    model.load_state_dict(checkpoint["model"])
    if optimizer is not None:
        optimizer.load_state_dict(checkpoint["optimizer"].state_dict())
    if scheduler is not None and checkpoint["scheduler"] is not None:
        scheduler.load_state_dict(checkpoint["scheduler"].state_dict())
    torch.set_rng_state(checkpoint["rng_cpu"].cpu())
    if checkpoint["rng_cuda"] and torch.cuda.is_available():
        torch.cuda.set_rng_state_all([state.cpu() for state in checkpoint["rng_cuda"]])
    return checkpoint["epoch"] + 1
