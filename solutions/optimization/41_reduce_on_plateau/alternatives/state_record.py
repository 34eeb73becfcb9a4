"""Alternative: the mutable state in one dict, the comparison chosen once at construction, and
the reduction as a separate function over the param groups."""
from __future__ import annotations

import copy
import operator
from typing import Literal

import torch
from torch import Tensor


def _cut(param_groups: list[dict], factor: float, floor: float, eps: float = 1e-8) -> None:
    for group in param_groups:
        lower = max(group["lr"] * factor, floor)
        if group["lr"] - lower > eps:
            group["lr"] = lower


class PlateauLR:
    """Re-implements torch ReduceLROnPlateau(mode, factor, patience, threshold (rel), cooldown, min_lr) on an optimizer; step(metric) once per epoch."""
    def __init__(self, optimizer: torch.optim.Optimizer, mode: Literal["min", "max"] = "min", factor: float = 0.1, patience: int = 10,
                 threshold: float = 1e-4, cooldown: int = 0, min_lr: float = 0.0) -> None:
        if mode == "min":
            self._better, worst, self._rel = operator.lt, float("inf"), 1.0 - threshold
        elif mode == "max":
            self._better, worst, self._rel = operator.gt, float("-inf"), 1.0 + threshold
        else:
            raise ValueError(mode)
        self.optimizer = optimizer
        self.config = {"factor": factor, "patience": patience, "cooldown": cooldown, "min_lr": min_lr}
        self.state = {"best": worst, "bad": 0, "cooldown_left": 0}

    def step(self, metric: float | Tensor) -> None:
        value = float(metric.detach().cpu()) if torch.is_tensor(metric) else float(metric)
        st, cfg = self.state, self.config
        if self._better(value, st["best"] * self._rel):
            st["best"], st["bad"] = value, 0
        else:
            st["bad"] += 1
        if st["cooldown_left"]:
            st["cooldown_left"] -= 1
            st["bad"] = 0
        if st["bad"] > cfg["patience"]:
            _cut(self.optimizer.param_groups, cfg["factor"], cfg["min_lr"])
            st["cooldown_left"], st["bad"] = cfg["cooldown"], 0

    def state_dict(self) -> dict:
        return copy.deepcopy({"config": self.config, "state": self.state})

    def load_state_dict(self, state: dict) -> None:
        self.config = dict(state["config"])
        self.state = dict(state["state"])
