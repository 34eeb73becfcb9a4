"""Averages the per-batch loss and accuracy: with a short last batch its few samples weigh as much
as a full batch, and the reported numbers are not the data set's. The other three bugs are fixed.

Caught by: test_metrics_over_samples
"""
from __future__ import annotations

from collections.abc import Iterable

import torch
import torch.nn.functional as F
from torch import Tensor, nn


def evaluate(model: nn.Module, loader: Iterable[tuple[Tensor, Tensor]]) -> dict[str, float]:
    """Eval mode (restored after), no autograd, totals per sample divided once at the end."""
    was_training = model.training
    model.eval()
    losses, accuracies = [], []
    try:
        with torch.no_grad():
            for x, y in loader:
                logits = model(x)
                losses.append(F.cross_entropy(logits, y).item())
                accuracies.append((logits.argmax(dim=1) == y).float().mean().item())
    finally:
        model.train(was_training)
    return {"loss": sum(losses) / len(losses), "accuracy": sum(accuracies) / len(accuracies)}


def predict_proba(model: nn.Module, loader: Iterable[tuple[Tensor, Tensor]]) -> Tensor:
    """Eval mode (restored after), no autograd, softmax over each sample's classes."""
    was_training = model.training
    model.eval()
    probs = []
    try:
        with torch.no_grad():
            for x, _ in loader:
                probs.append(F.softmax(model(x), dim=1))
    finally:
        model.train(was_training)
    return torch.cat(probs)
