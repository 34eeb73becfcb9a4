"""Collects every batch's logits and labels under no_grad, then scores them once; torch.no_grad as a
decorator: the same contract by another route."""
from __future__ import annotations

from collections.abc import Iterable

import torch
import torch.nn.functional as F
from torch import Tensor, nn


@torch.no_grad()
def _logits(model: nn.Module, loader: Iterable[tuple[Tensor, Tensor]]) -> tuple[Tensor, Tensor]:
    was_training = model.training
    model.train(False)
    try:
        pairs = [(model(x), y) for x, y in loader]
    finally:
        model.train(was_training)
    return torch.cat([p[0] for p in pairs]), torch.cat([p[1] for p in pairs])


def evaluate(model: nn.Module, loader: Iterable[tuple[Tensor, Tensor]]) -> dict[str, float]:
    logits, y = _logits(model, loader)
    return {"loss": F.cross_entropy(logits, y).item(), "accuracy": (logits.argmax(1) == y).double().mean().item()}


def predict_proba(model: nn.Module, loader: Iterable[tuple[Tensor, Tensor]]) -> Tensor:
    logits, _ = _logits(model, loader)
    return torch.exp(F.log_softmax(logits, dim=1))
