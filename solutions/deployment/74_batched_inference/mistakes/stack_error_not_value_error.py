"""Lets torch.stack complain about requests of different sizes: a RuntimeError, not the
ValueError the contract promises (and only once the bad request's batch is reached).

Caught by: test_empty_and_mismatched
"""
from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor, nn


def batched_predict(model: nn.Module, requests: Sequence[Tensor], max_batch_size: int,
                    device: torch.device | str = "cpu") -> list[Tensor]:
    """Group single-sample requests (each (F,)) into batches of <= max_batch_size, run under eval + torch.inference_mode on device (model already there), return per-request outputs (model(batch)[j], shape (C,)) on CPU in request order; restore the model's mode."""
    if len(requests) == 0:
        return []
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
