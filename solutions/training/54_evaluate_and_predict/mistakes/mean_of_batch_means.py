"""Averages the per-batch mean losses (and accuracies) with equal weight: the short last batch of 7
weighs as much as each batch of 32, so the result is not the mean over the samples.

Caught by: test_sample_weighted_loss, test_accuracy
"""
from __future__ import annotations

from collections.abc import Callable, Iterable

import torch
from torch import Tensor, nn


def evaluate(model: nn.Module, loader: Iterable[tuple[Tensor, Tensor]], loss_fn: Callable[[Tensor, Tensor], Tensor],
             device: torch.device | str) -> tuple[float, float]:
    """(sample-weighted mean loss, accuracy) in eval mode without autograd; restores the model's previous train/eval mode."""
    was_training = model.training
    model.eval()
    losses, accs = [], []
    try:
        with torch.no_grad():
            for x, y in loader:
                x, y = x.to(device), y.to(device)
                logits = model(x)
                losses.append(loss_fn(logits, y).item())
                accs.append((logits.argmax(dim=1) == y).float().mean().item())
    finally:
        model.train(was_training)
    return sum(losses) / len(losses), sum(accs) / len(accs)


def predict(model: nn.Module, x: Tensor) -> Tensor:
    """int64 class indices argmax(dim=1) computed under eval mode + torch.inference_mode(); restores the previous mode."""
    was_training = model.training
    model.eval()
    try:
        with torch.inference_mode():
            return model(x).argmax(dim=1)
    finally:
        model.train(was_training)

