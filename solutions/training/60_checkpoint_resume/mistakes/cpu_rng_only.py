"""Saves and restores the CPU RNG state only: on a GPU, dropout masks come from the CUDA
generator, which a resumed run starts from another state (on a CPU-only host nothing tells them
apart).

Caught by: test_cuda_checkpoint
"""
from __future__ import annotations

import os
from typing import Any

import torch
from torch import nn


def save_checkpoint(path: str | os.PathLike, model: nn.Module, optimizer: torch.optim.Optimizer, scheduler: Any | None,
                    epoch: int, extra: dict | None = None) -> None:
    """One file with model/optimizer/scheduler state_dicts, epoch, torch CPU RNG state (+ all CUDA RNG states if available) and extra; loadable with weights_only=True."""
    checkpoint = {
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "scheduler": scheduler.state_dict() if scheduler is not None else None,
        "epoch": int(epoch),
        "rng_cpu": torch.get_rng_state(),
        "extra": extra if extra is not None else {},
    }
    torch.save(checkpoint, path)


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
    return checkpoint["epoch"] + 1
