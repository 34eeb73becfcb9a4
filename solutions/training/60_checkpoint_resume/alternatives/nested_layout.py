"""A nested layout (states / meta / rng), the epoch stored as a tensor, pathlib paths, an open
file handle for both save and load, map_location passed positionally, and the RNG restored on
every load (with or without an optimizer)."""
from __future__ import annotations

import os
import pathlib
from typing import Any

import torch
from torch import nn


def save_checkpoint(path: str | os.PathLike, model: nn.Module, optimizer: torch.optim.Optimizer, scheduler: Any | None,
                    epoch: int, extra: dict | None = None) -> None:
    rng = {"cpu": torch.random.get_rng_state()}
    if torch.cuda.is_available():
        rng["cuda"] = [torch.cuda.get_rng_state(i) for i in range(torch.cuda.device_count())]
    payload = {
        "states": {"model": model.state_dict(), "optim": optimizer.state_dict()},
        "meta": {"epoch": torch.tensor(epoch)},
        "rng": rng,
        "extra": dict(extra) if extra else {},
    }
    if scheduler is not None:
        payload["states"]["sched"] = scheduler.state_dict()
    with pathlib.Path(path).open("wb") as fh:
        torch.save(payload, fh)


def load_checkpoint(path: str | os.PathLike, model: nn.Module, optimizer: torch.optim.Optimizer | None = None,
                    scheduler: Any | None = None, map_location: str | torch.device = "cpu") -> int:
    with pathlib.Path(path).open("rb") as fh:
        payload = torch.load(fh, map_location, weights_only=True)
    states = payload["states"]
    model.load_state_dict(states["model"])
    if optimizer is not None:
        optimizer.load_state_dict(states["optim"])
    if scheduler is not None and "sched" in states:
        scheduler.load_state_dict(states["sched"])
    if torch.cuda.is_available():
        for i, state in enumerate(payload["rng"].get("cuda", [])[: torch.cuda.device_count()]):
            torch.cuda.set_rng_state(state.cpu(), i)
    torch.random.set_rng_state(payload["rng"]["cpu"].to("cpu"))
    return int(payload["meta"]["epoch"].item()) + 1
