"""Evaluates with autograd recording: every forward builds a graph and keeps its activations until
the batch's tensors die, and predict_proba's result drags a graph along. The numbers are right;
the memory and the time are not. The other three bugs are fixed.

Caught by: test_no_autograd_while_evaluating
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
    total_loss, correct, count = 0.0, 0, 0
    try:
        for x, y in loader:
            logits = model(x)
            total_loss += F.cross_entropy(logits, y, reduction="sum").item()
            correct += (logits.argmax(dim=1) == y).sum().item()
            count += len(y)
    finally:
        model.train(was_training)
    return {"loss": total_loss / count, "accuracy": correct / count}


def predict_proba(model: nn.Module, loader: Iterable[tuple[Tensor, Tensor]]) -> Tensor:
    """Eval mode (restored after), no autograd, softmax over each sample's classes."""
    was_training = model.training
    model.eval()
    probs = []
    try:
        for x, _ in loader:
            probs.append(F.softmax(model(x), dim=1))
    finally:
        model.train(was_training)
    return torch.cat(probs)
