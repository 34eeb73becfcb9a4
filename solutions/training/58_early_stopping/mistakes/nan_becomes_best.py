"""Compares with `not (metric >= best)` after a first call that takes any metric: a NaN metric is
an "improvement" (every comparison with NaN is False), becomes best_score, and nothing can beat it.

Caught by: test_nan_is_not_improvement
"""
from __future__ import annotations

import math
from typing import Literal

import torch
from torch import nn


class EarlyStopping:
    """step(metric, model) -> True when training should stop (patience consecutive non-improvements; an improvement means strictly better than the best score by more than min_delta); keeps a CPU deep copy of the best state_dict."""
    best_score: float | None
    best_epoch: int | None

    def __init__(self, patience: int = 5, min_delta: float = 0.0, mode: Literal["min", "max"] = "min") -> None:
        if mode not in ("min", "max"):
            raise ValueError(f"mode must be 'min' or 'max', got {mode!r}")
        self.patience, self.min_delta, self.mode = patience, min_delta, mode
        self.best_score: float | None = None
        self.best_epoch: int | None = None
        self.best_state: dict[str, torch.Tensor] | None = None
        self.bad_epochs = 0
        self.calls = 0

    def _improves(self, metric: float) -> bool:
        if self.best_score is None:
            return True
        if self.mode == "min":
            return not (metric >= self.best_score - self.min_delta)
        return not (metric <= self.best_score + self.min_delta)

    def step(self, metric: float, model: nn.Module) -> bool:
        metric = float(metric)
        epoch = self.calls
        self.calls += 1
        if self._improves(metric):
            self.best_score, self.best_epoch, self.bad_epochs = metric, epoch, 0
            # state_dict() holds references to the live tensors: copy them off the model's device
            self.best_state = {k: v.detach().to("cpu", copy=True) for k, v in model.state_dict().items()}
        else:
            self.bad_epochs += 1
        return self.bad_epochs >= self.patience

    def restore_best(self, model: nn.Module) -> None:
        if self.best_state is None:
            raise RuntimeError("no best state: step() has not seen an improvement yet")
        model.load_state_dict(self.best_state)             # copies into the model's own tensors, on its device
