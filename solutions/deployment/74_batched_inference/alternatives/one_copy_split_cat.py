"""Stacks every request once and copies them to the device in one go, splits that into batches
with torch.split, concatenates the outputs and moves them back once; the inference happens in a
helper decorated with torch.inference_mode; each submodule's own training flag is put back."""
from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor, nn


@torch.inference_mode()
def _forward_in_batches(model: nn.Module, inputs: Tensor, max_batch_size: int) -> Tensor:
    return torch.cat([model(chunk) for chunk in torch.split(inputs, max_batch_size)])


def batched_predict(model: nn.Module, requests: Sequence[Tensor], max_batch_size: int,
                    device: torch.device | str = "cpu") -> list[Tensor]:
    """Return the model's output for each request, in request order, computed in batches of at most `max_batch_size` requests.

    Each output is a CPU tensor of shape (C,) with no autograd history."""
    if not len(requests):
        return []
    sizes = {tuple(r.shape) for r in requests}
    if len(sizes) != 1 or len(next(iter(sizes))) != 1:
        raise ValueError(f"requests must all be (F,) tensors of one size, got shapes {sorted(sizes)}")
    modes = {m: m.training for m in model.modules()}
    model.eval()
    try:
        outputs = _forward_in_batches(model, torch.stack(tuple(requests)).to(device), max_batch_size)
    finally:
        for m, mode in modes.items():
            m.training = mode
    return list(outputs.to("cpu"))
