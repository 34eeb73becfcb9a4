"""Direct imports of torch.save / torch.load, a flat layout built with dict(), the RNG captured
through torch.random, and the scheduler entry left out when there is none."""
from __future__ import annotations

import os
from typing import Any

import torch
from torch import load, nn, save
from torch.random import get_rng_state, set_rng_state


def save_checkpoint(path: str | os.PathLike, model: nn.Module, optimizer: torch.optim.Optimizer, scheduler: Any | None,
                    epoch: int, extra: dict | None = None) -> None:
    ckpt = dict(model_state_dict=model.state_dict(), optimizer_state_dict=optimizer.state_dict(),
                epoch=epoch, torch_rng_state=get_rng_state(), extra=extra)
    if scheduler is not None:
        ckpt["scheduler_state_dict"] = scheduler.state_dict()
    if torch.cuda.is_available():
        ckpt["cuda_rng_states"] = torch.cuda.get_rng_state_all()
    save(ckpt, os.fspath(path))


def load_checkpoint(path: str | os.PathLike, model: nn.Module, optimizer: torch.optim.Optimizer | None = None,
                    scheduler: Any | None = None, map_location: str | torch.device = "cpu") -> int:
    ckpt = load(os.fspath(path), map_location=map_location, weights_only=True)
    model.load_state_dict(ckpt["model_state_dict"])
    if optimizer is None:
        return ckpt["epoch"] + 1
    optimizer.load_state_dict(ckpt["optimizer_state_dict"])
    if scheduler is not None and "scheduler_state_dict" in ckpt:
        scheduler.load_state_dict(ckpt["scheduler_state_dict"])
    if "cuda_rng_states" in ckpt and torch.cuda.is_available():
        torch.cuda.set_rng_state_all([s.cpu() for s in ckpt["cuda_rng_states"]])
    set_rng_state(ckpt["torch_rng_state"].cpu())
    return ckpt["epoch"] + 1
