"""Moves every request to the device on its own, then stacks there: one host-to-device copy per
request instead of one per batch.

Caught by: test_one_copy_per_batch_meta, test_cuda_one_copy_per_batch
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
    flags = [(module, module.training) for module in model.modules()]  # each submodule's own
    model.eval()
    outputs: list[Tensor] = []
    try:
        with torch.inference_mode():
            for start in range(0, len(requests), max_batch_size):
                batch = torch.stack([r.to(device) for r in requests[start:start + max_batch_size]])
                outputs.extend(model(batch).cpu().unbind(0))
    finally:
        for module, training in flags:
            module.training = training
    return outputs
