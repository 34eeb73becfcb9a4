"""Turns both modes into "higher is better" with a sign, keeps the best state as
copy.deepcopy(state_dict) moved to the CPU tensor by tensor, and tests NaN with `x != x`."""
from __future__ import annotations

import copy
from typing import Literal

import torch
from torch import nn


class EarlyStopping:
    """step(metric, model) -> True when training should stop (patience consecutive non-improvements; an improvement means strictly better than the best score by more than min_delta); keeps a CPU deep copy of the best state_dict."""
    best_score: float | None
    best_epoch: int | None

    def __init__(self, patience: int = 5, min_delta: float = 0.0, mode: Literal["min", "max"] = "min") -> None:
        self.patience = patience
        self.min_delta = abs(min_delta)
        self.sign = 1.0 if mode == "max" else -1.0
        self.best_score = None
        self.best_epoch = None
        self._snapshot = None
        self._epoch = -1
        self._wait = 0

    def step(self, metric: float, model: nn.Module) -> bool:
        self._epoch += 1
        value = float(metric)
        better = value == value and (
            self.best_score is None or self.sign * (value - self.best_score) > self.min_delta)
        if better:
            self.best_score = value
            self.best_epoch = self._epoch
            self._snapshot = {k: t.cpu() for k, t in copy.deepcopy(model.state_dict()).items()}
            self._wait = 0
            return False
        self._wait += 1
        return self._wait >= self.patience

    def restore_best(self, model: nn.Module) -> None:
        with torch.no_grad():
            for name, tensor in model.state_dict().items():
                tensor.copy_(self._snapshot[name])
