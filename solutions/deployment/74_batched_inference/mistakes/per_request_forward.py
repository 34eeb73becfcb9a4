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
    """Group single-sample requests (each (F,)) into batches of <= max_batch_size, run under eval + torch.inference_mode on device (model already there), return per-request outputs (model(batch)[j], shape (C,)) on CPU in request order; restore the model's mode."""
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
            for request in requests:
                outputs.append(model(request.unsqueeze(0).to(device))[0].cpu())
    finally:
        model.train(was_training)
    return outputs
