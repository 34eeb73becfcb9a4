"""Saves its whole __dict__, optimizer included: after loading, the scheduler cuts the lrs of the
old (deep-copied) optimizer and the fresh one never changes.

Caught by: test_state_dict_round_trip
"""
from __future__ import annotations

import math
from typing import Literal

import torch
from torch import Tensor


class PlateauLR:
    """Re-implements torch ReduceLROnPlateau(mode, factor, patience, threshold (rel), cooldown, min_lr) on an optimizer; step(metric) once per epoch."""
    def __init__(self, optimizer: torch.optim.Optimizer, mode: Literal["min", "max"] = "min", factor: float = 0.1, patience: int = 10,
                 threshold: float = 1e-4, cooldown: int = 0, min_lr: float = 0.0) -> None:
        self.optimizer = optimizer
        self.mode, self.factor, self.patience = mode, factor, patience
        self.threshold, self.cooldown, self.min_lr = threshold, cooldown, min_lr
        self.best = math.inf if mode == "min" else -math.inf
        self.num_bad_epochs = 0
        self.cooldown_counter = 0

    def _is_better(self, current: float) -> bool:
        if self.mode == "min":
            return current < self.best * (1.0 - self.threshold)
        return current > self.best * (1.0 + self.threshold)

    def step(self, metric: float | Tensor) -> None:
        current = float(metric)                     # a 0-dim tensor (CUDA too) becomes a Python float
        if self._is_better(current):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0                 # bad epochs in cooldown do not count
        if self.num_bad_epochs > self.patience:
            for group in self.optimizer.param_groups:
                old = float(group["lr"])
                new = max(old * self.factor, self.min_lr)
                if old - new > 1e-8:
                    group["lr"] = new
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0

    def state_dict(self) -> dict:
        return dict(self.__dict__)

    def load_state_dict(self, state: dict) -> None:
        self.__dict__.update(state)
