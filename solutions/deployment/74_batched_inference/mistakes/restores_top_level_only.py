"""Remembers only model.training and puts it back with model.train(flag), which sets every
submodule to that one flag: a train-mode model with a frozen (eval) BatchNorm comes back all train.

Caught by: test_mode_restored
"""
from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor, nn


def batched_predict(model: nn.Module, requests: Sequence[Tensor], max_batch_size: int,
                    device: torch.device | str = "cpu") -> list[Tensor]:
    """Return the model's output for each request, in request order, computed in batches of at most `max_batch_size` requests.

    Each output is a CPU tensor of shape (C,) with no autograd history."""
    if len(requests) == 0:
        return []
    shape = requests[0].shape
    if any(r.dim() != 1 or r.shape != shape for r in requests):
        raise ValueError(f"every request must be a 1-D tensor of the same size, the first is {tuple(shape)}")
    was_training = model.training
    model.eval()
    outputs: list[Tensor] = []
    try:
        with torch.inference_mode():
            for start in range(0, len(requests), max_batch_size):
                batch = torch.stack(list(requests[start:start + max_batch_size])).to(device)  # one copy per batch
                outputs.extend(model(batch).cpu().unbind(0))
    finally:
        model.train(was_training)
    return outputs
