"""The answer of many tutorials: the checkpoint holds the model's weights (and the epoch), not the
optimizer's state, so AdamW restarts its moments and step count after a resume (and the scheduler
its schedule).

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
        "epoch": int(epoch),
        "rng_cpu": torch.get_rng_state(),
        "rng_cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else [],
        "extra": extra if extra is not None else {},
    }
    torch.save(checkpoint, path)


def load_checkpoint(path: str | os.PathLike, model: nn.Module, optimizer: torch.optim.Optimizer | None = None,
                    scheduler: Any | None = None, map_location: str | torch.device = "cpu") -> int:
    checkpoint = torch.load(path, map_location=map_location, weights_only=True)
    model.load_state_dict(checkpoint["model"])
    torch.set_rng_state(checkpoint["rng_cpu"].cpu())
    if checkpoint["rng_cuda"] and torch.cuda.is_available():
        torch.cuda.set_rng_state_all([state.cpu() for state in checkpoint["rng_cuda"]])
    return checkpoint["epoch"] + 1
