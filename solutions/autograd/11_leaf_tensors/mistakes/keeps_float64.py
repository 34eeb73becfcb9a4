"""Converts only integer data to float and keeps the dtype of floating data, so a float64 NumPy
array comes back as a float64 tensor (float32 was asked for).

Caught by: test_float32_for_all_inputs
"""
from __future__ import annotations

import torch


def make_trainable(data, device="cpu"):
    t = torch.as_tensor(data, device=device)
    if not t.is_floating_point():
        t = t.float()
    return t.detach().clone().requires_grad_(True)


def is_trainable_leaf(t):
    return t.is_leaf and t.requires_grad
