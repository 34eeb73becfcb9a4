from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor, nn


def batched_predict(model: nn.Module, requests: Sequence[Tensor], max_batch_size: int, device: torch.device | str = "cpu") -> list[Tensor]:
    """Return the model's output for each request, in request order, computed in batches of at most `max_batch_size` requests.

    Each output is a CPU tensor of shape (C,) with no autograd history."""
    raise NotImplementedError
