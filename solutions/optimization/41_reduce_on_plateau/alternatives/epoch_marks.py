"""Alternative: no counters; remembers the epoch of the last reset and of the last cut, and
derives the bad-epoch count and the cooldown from them."""
from __future__ import annotations

from typing import Literal

import torch
from torch import Tensor


class PlateauLR:
    """Re-implements torch ReduceLROnPlateau(mode, factor, patience, threshold (rel), cooldown, min_lr) on an optimizer; step(metric) once per epoch."""
    def __init__(self, optimizer: torch.optim.Optimizer, mode: Literal["min", "max"] = "min", factor: float = 0.1, patience: int = 10,
                 threshold: float = 1e-4, cooldown: int = 0, min_lr: float = 0.0) -> None:
        self.optimizer = optimizer
        self.sign = 1.0 if mode == "min" else -1.0
        self.factor, self.patience, self.threshold = factor, patience, threshold
        self.cooldown, self.min_lr = cooldown, min_lr
        self.epoch = 0
        self.best = float("inf") if mode == "min" else float("-inf")
        self.reset_epoch = 0                      # last improvement, cooldown epoch or cut
        self.cut_epoch = -(10 ** 9)

    def step(self, metric: float | Tensor) -> None:
        value = metric.item() if isinstance(metric, Tensor) else float(metric)
        self.epoch += 1
        scale = 1.0 - self.sign * self.threshold
        if self.sign * value < self.sign * self.best * scale:
            self.best = value
            self.reset_epoch = self.epoch
        if self.epoch <= self.cut_epoch + self.cooldown:
            self.reset_epoch = self.epoch
        if self.epoch - self.reset_epoch > self.patience:
            groups = self.optimizer.param_groups
            new_lrs = [max(g["lr"] * self.factor, self.min_lr) for g in groups]
            for g, lr in zip(groups, new_lrs):
                if g["lr"] - lr > 1e-8:
                    g["lr"] = lr
            self.cut_epoch = self.reset_epoch = self.epoch

    def state_dict(self) -> dict:
        keys = ("sign", "factor", "patience", "threshold", "cooldown", "min_lr", "epoch", "best",
                "reset_epoch", "cut_epoch")
        return {k: getattr(self, k) for k in keys}

    def load_state_dict(self, state: dict) -> None:
        for k, v in state.items():
            setattr(self, k, v)
