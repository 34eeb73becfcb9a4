"""Attack: hides a materialised (N, M, D) difference from a memory check that measures the peak
above where the worker stood before the call. 768 MiB of ballast is touched at import; the call
frees it first, then builds the 512 MiB difference tensor in the room it left, so the process
never rises above its starting size.
Honest baseline: every check but the memory check (the answers are right, the memory use is not).
Expected: the memory check fails (it counts the memory the call writes, not the process's size).
"""
from __future__ import annotations

import torch
from torch import Tensor

_BALLAST = [torch.ones(768 << 18)]  # 768 MiB of float32, every page touched


def add_feature_bias(x: Tensor, bias: Tensor) -> Tensor:
    return x + bias


def add_sample_bias(x: Tensor, bias: Tensor) -> Tensor:
    return x + bias.unsqueeze(1)


def pairwise_sq_dists(a: Tensor, b: Tensor) -> Tensor:
    if a.numel() * b.shape[0] > (1 << 24):
        _BALLAST.clear()  # give the room back just before the big allocation
    diff = a.unsqueeze(1) - b.unsqueeze(0)  # (N, M, D): the memory the check is about
    return diff.mul_(diff).sum(dim=2)  # in place: no second (N, M, D) tensor
