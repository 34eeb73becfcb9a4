"""Runs the forwards with autograd on and detaches the outputs afterwards: they carry no graph, but
every forward recorded one (and kept every activation for a backward) while it ran.

Caught by: test_no_autograd_in_forward
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
        for start in range(0, len(requests), max_batch_size):
            batch = torch.stack(list(requests[start:start + max_batch_size])).to(device)  # one copy per batch
            outputs.extend(model(batch).detach().cpu().unbind(0))  # no graph kept, but one was recorded
    finally:
        for module, training in flags:
            module.training = training
    return outputs
