"""Saves the model, optimizer and scheduler states but not the RNG state: after a resume in a new
process the dropout masks come from another generator state, so the losses drift from the
uninterrupted run at the first resumed step.

Caught by: test_resume_bit_identical
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
        "optimizer": optimizer.state_dict(),
        "scheduler": scheduler.state_dict() if scheduler is not None else None,
        "epoch": int(epoch),
        "extra": extra if extra is not None else {},
    }
    torch.save(checkpoint, path)


def load_checkpoint(path: str | os.PathLike, model: nn.Module, optimizer: torch.optim.Optimizer | None = None,
                    scheduler: Any | None = None, map_location: str | torch.device = "cpu") -> int:
    checkpoint = torch.load(path, map_location=map_location, weights_only=True)
    model.load_state_dict(checkpoint["model"])
    if optimizer is not None:
        optimizer.load_state_dict(checkpoint["optimizer"])
    if scheduler is not None and checkpoint["scheduler"] is not None:
        scheduler.load_state_dict(checkpoint["scheduler"])
    return checkpoint["epoch"] + 1
