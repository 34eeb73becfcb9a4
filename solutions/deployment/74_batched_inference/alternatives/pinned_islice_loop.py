"""Walks the requests with itertools.islice, pins each batch before a non-blocking copy when the
device is CUDA, and appends row by row; validation with an explicit loop."""
from __future__ import annotations

import itertools
from collections.abc import Sequence

import torch
from torch import Tensor, nn


def batched_predict(model: nn.Module, requests: Sequence[Tensor], max_batch_size: int,
                    device: torch.device | str = "cpu") -> list[Tensor]:
    """Group single-sample requests (each (F,)) into batches of <= max_batch_size, run under eval + torch.inference_mode on device (model already there), return per-request outputs (model(batch)[j], shape (C,)) on CPU in request order; restore the model's mode."""
    requests = list(requests)
    for i, r in enumerate(requests):
        if r.ndim != 1 or r.numel() != requests[0].numel():
            raise ValueError(f"request {i} has shape {tuple(r.shape)}, request 0 has {tuple(requests[0].shape)}")
    device = torch.device(device)
    mode = model.training
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
    model.train(mode)
    return results
