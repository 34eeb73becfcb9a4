"""Keeps a whole CPU copy of the best model (deepcopy, then .to('cpu')); restores through
load_state_dict from it. History of scores kept as a list; counts the epochs since the best."""
from __future__ import annotations

import copy
import math
from typing import Literal

from torch import nn


class EarlyStopping:
    """step(metric, model) -> True when training should stop (patience consecutive non-improvements; an improvement means strictly better than the best score by more than min_delta); keeps a CPU deep copy of the best state_dict."""
    best_score: float | None
    best_epoch: int | None

    def __init__(self, patience: int = 5, min_delta: float = 0.0, mode: Literal["min", "max"] = "min") -> None:
        self.patience, self.min_delta, self.mode = patience, min_delta, mode
        self.history: list[float] = []
        self.best_score = None
        self.best_epoch = None
        self.best_model: nn.Module | None = None

    def step(self, metric: float, model: nn.Module) -> bool:
        metric = float(metric)
        self.history.append(metric)
        epoch = len(self.history) - 1
        if not math.isnan(metric):
            if self.best_score is None:
                improved = True
            elif self.mode == "max":
                improved = metric - self.best_score > self.min_delta
            else:
                improved = self.best_score - metric > self.min_delta
            if improved:
                self.best_score, self.best_epoch = metric, epoch
                self.best_model = copy.deepcopy(model).to("cpu")
        since = epoch - self.best_epoch if self.best_epoch is not None else epoch + 1
        return since >= self.patience

    def restore_best(self, model: nn.Module) -> None:
        model.load_state_dict(self.best_model.state_dict())
