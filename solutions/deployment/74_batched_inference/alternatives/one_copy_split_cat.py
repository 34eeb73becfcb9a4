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
    """Group single-sample requests (each (F,)) into batches of <= max_batch_size, run under eval + torch.inference_mode on device (model already there), return per-request outputs (model(batch)[j], shape (C,)) on CPU in request order; restore the model's mode."""
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
