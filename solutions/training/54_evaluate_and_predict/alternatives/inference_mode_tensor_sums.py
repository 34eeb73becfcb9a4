"""Runs the whole evaluation under torch.inference_mode(), keeps the running sums as float64
tensors on the device (one host read at the end), and counts samples with len()."""
from __future__ import annotations

from collections.abc import Callable, Iterable

import torch
from torch import Tensor, nn


def evaluate(model: nn.Module, loader: Iterable[tuple[Tensor, Tensor]], loss_fn: Callable[[Tensor, Tensor], Tensor],
             device: torch.device | str) -> tuple[float, float]:
    """(sample-weighted mean loss, accuracy) in eval mode without autograd; restores the model's previous train/eval mode."""
    mode = model.training
    model.eval()
    loss_sum = torch.zeros((), dtype=torch.float64, device=device)
    hit_sum = torch.zeros((), dtype=torch.int64, device=device)
    count = 0
    with torch.inference_mode():
        for inputs, labels in loader:
            inputs = inputs.to(device)
            labels = labels.to(device)
            scores = model(inputs)
            loss_sum += loss_fn(scores, labels).double() * len(labels)
            hit_sum += scores.argmax(dim=-1).eq(labels).sum()
            count += len(labels)
    model.train(mode)
    return loss_sum.item() / count, hit_sum.item() / count


def predict(model: nn.Module, x: Tensor) -> Tensor:
    """int64 class indices argmax(dim=1) computed under eval mode + torch.inference_mode(); restores the previous mode."""
    mode = model.training
    model.train(False)
    with torch.inference_mode():
        out = torch.argmax(model(x), dim=1).to(torch.int64)
    model.train(mode)
    return out
