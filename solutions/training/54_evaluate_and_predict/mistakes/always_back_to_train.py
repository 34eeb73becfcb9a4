"""Ends with model.train() instead of restoring the previous mode: a model that was in eval mode
(an inference service) comes back in training mode.

Caught by: test_restores_prior_mode
"""
from __future__ import annotations

from collections.abc import Callable, Iterable

import torch
from torch import Tensor, nn


def evaluate(model: nn.Module, loader: Iterable[tuple[Tensor, Tensor]], loss_fn: Callable[[Tensor, Tensor], Tensor],
             device: torch.device | str) -> tuple[float, float]:
    """(sample-weighted mean loss, accuracy) in eval mode without autograd; restores the model's previous train/eval mode."""
    model.eval()
    total_loss, correct, seen = 0.0, 0, 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            logits = model(x)
            n = x.shape[0]
            total_loss += loss_fn(logits, y).item() * n
            correct += (logits.argmax(dim=1) == y).sum().item()
            seen += n
    model.train()
    return total_loss / seen, correct / seen


def predict(model: nn.Module, x: Tensor) -> Tensor:
    """int64 class indices argmax(dim=1) computed under eval mode + torch.inference_mode(); restores the previous mode."""
    model.eval()
    with torch.inference_mode():
        labels = model(x).argmax(dim=1)
    model.train()
    return labels
