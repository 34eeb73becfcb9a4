"""Collects the logits and targets of every batch, then scores them once: the mean-reduced loss
over the concatenation is the per-sample mean. Modes saved and restored per module; grad mode off
with a decorator; predict via torch.max."""
from __future__ import annotations

from collections.abc import Callable, Iterable

import torch
from torch import Tensor, nn


def _modes(model: nn.Module) -> list[tuple[nn.Module, bool]]:
    return [(m, m.training) for m in model.modules()]


def _restore(saved: list[tuple[nn.Module, bool]]) -> None:
    for m, mode in saved:
        m.training = mode


@torch.no_grad()
def evaluate(model: nn.Module, loader: Iterable[tuple[Tensor, Tensor]], loss_fn: Callable[[Tensor, Tensor], Tensor],
             device: torch.device | str) -> tuple[float, float]:
    """(sample-weighted mean loss, accuracy) in eval mode without autograd; restores the model's previous train/eval mode."""
    saved = _modes(model)
    model.train(False)
    outputs, targets = [], []
    try:
        for x, y in loader:
            outputs.append(model(x.to(device, non_blocking=True)))
            targets.append(y.to(device, non_blocking=True))
    finally:
        _restore(saved)
    logits, labels = torch.cat(outputs), torch.cat(targets)
    loss = float(loss_fn(logits, labels))
    accuracy = float(torch.eq(logits.argmax(1), labels).double().mean())
    return loss, accuracy


def predict(model: nn.Module, x: Tensor) -> Tensor:
    """int64 class indices argmax(dim=1) computed under eval mode + torch.inference_mode(); restores the previous mode."""
    saved = _modes(model)
    model.eval()
    with torch.inference_mode():
        _, labels = torch.max(model(x), dim=1)
    _restore(saved)
    return labels
