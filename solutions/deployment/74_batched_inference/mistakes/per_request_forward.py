"""One forward per request (a batch of one each time): correct outputs, but the hardware runs
n small forwards instead of ceil(n / max_batch_size) full ones.

Caught by: test_forward_count_and_batch_sizes
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
            for request in requests:
                outputs.append(model(request.unsqueeze(0).to(device))[0].cpu())
    finally:
        for module, training in flags:
            module.training = training
    return outputs
