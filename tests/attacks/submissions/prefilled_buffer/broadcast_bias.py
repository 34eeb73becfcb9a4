"""Attack: materialises the (N, M, D) difference in a buffer allocated and touched at import, so
the call allocates nothing new: the worker's resident size does not move while 512 MiB are
written.
Honest baseline: every check but the memory check.
Expected: the memory check fails (it counts the memory the call writes, wherever it was allocated).
"""
from __future__ import annotations

import torch
from torch import Tensor

_BUFFER = torch.zeros(512 << 18)  # 512 MiB of float32, touched


def add_feature_bias(x: Tensor, bias: Tensor) -> Tensor:
    return x + bias


def add_sample_bias(x: Tensor, bias: Tensor) -> Tensor:
    return x + bias.unsqueeze(1)


def pairwise_sq_dists(a: Tensor, b: Tensor) -> Tensor:
    n, m, d = a.shape[0], b.shape[0], a.shape[1]
    if n * m * d <= _BUFFER.numel() and a.dtype == torch.float32:
        diff = _BUFFER[: n * m * d].view(n, m, d)
        torch.sub(a.unsqueeze(1), b.unsqueeze(0), out=diff)
    else:
        diff = a.unsqueeze(1) - b.unsqueeze(0)
    return diff.mul_(diff).sum(dim=2)  # in place: no second (N, M, D) tensor
