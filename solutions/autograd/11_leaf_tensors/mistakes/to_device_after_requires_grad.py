"""Creates the tensor with requires_grad=True on the CPU and only then moves it with `.to(device)`.

On the CPU `.to("cpu")` returns the same tensor, so everything looks fine; on any other device
(cuda, meta) `.to()` is a recorded operation and the result is a NON-leaf whose `.grad` stays
None after backward(): the real leaf is the CPU tensor nobody holds.

Caught by: test_meta_leaf_fallback
"""
from __future__ import annotations

import torch


def make_trainable(data, device="cpu"):
    return torch.tensor(data, dtype=torch.float32, requires_grad=True).to(device)


def is_trainable_leaf(t):
    return t.is_leaf and t.requires_grad
