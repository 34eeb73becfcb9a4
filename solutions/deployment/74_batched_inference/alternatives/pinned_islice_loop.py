"""Walks the requests with itertools.islice, pins each batch before a non-blocking copy when the
device is CUDA, and appends row by row; validation with an explicit loop; each submodule's flag
put back through train() in pre-order."""
from __future__ import annotations

import itertools
from collections.abc import Sequence

import torch
from torch import Tensor, nn


def batched_predict(model: nn.Module, requests: Sequence[Tensor], max_batch_size: int,
                    device: torch.device | str = "cpu") -> list[Tensor]:
    """Return the model's output for each request, in request order, computed in batches of at most `max_batch_size` requests.

    Each output is a CPU tensor of shape (C,) with no autograd history."""
    requests = list(requests)
    for i, r in enumerate(requests):
        if r.ndim != 1 or r.numel() != requests[0].numel():
            raise ValueError(f"request {i} has shape {tuple(r.shape)}, request 0 has {tuple(requests[0].shape)}")
    device = torch.device(device)
    modes = {name: m.training for name, m in model.named_modules()}
    results: list[Tensor] = []
    pending = iter(requests)
    model.train(False)
    with torch.inference_mode():
        while chunk := list(itertools.islice(pending, max_batch_size)):
            batch = torch.stack(chunk)
            if device.type == "cuda":
                batch = batch.pin_memory().to(device, non_blocking=True)
            else:
                batch = batch.to(device)
            for row in model(batch).to("cpu"):
                results.append(row)
    for name, m in model.named_modules():  # parents first: a submodule's own flag wins
        m.train(modes[name])
    return results
