from __future__ import annotations

from collections.abc import Iterable

import torch
import torch.nn.functional as F
from torch import Tensor, nn


def evaluate(model: nn.Module, loader: Iterable[tuple[Tensor, Tensor]]) -> dict[str, float]:
    """The model's mean cross-entropy loss and its accuracy over the loader, as Python floats."""
    losses, accuracies = [], []
    for x, y in loader:
        logits = model(x)
        losses.append(F.cross_entropy(logits, y).item())
        accuracies.append((logits.argmax(dim=1) == y).float().mean().item())
    return {"loss": sum(losses) / len(losses), "accuracy": sum(accuracies) / len(accuracies)}


def predict_proba(model: nn.Module, loader: Iterable[tuple[Tensor, Tensor]]) -> Tensor:
    """The class probabilities of every sample of the loader, in the loader's order."""
    probs = []
    for x, _ in loader:
        probs.append(F.softmax(model(x), dim=0))
    return torch.cat(probs)
