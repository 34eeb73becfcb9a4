"""Makes a float64 tensor that requires grad and converts it with `.float()` afterwards, so the
returned tensor is the output of a cast (a non-leaf: grad_fn=ToCopyBackward0) and never gets
`.grad`. It also tests only `requires_grad`, which is True for intermediate results too.

Caught by: test_leaf_receives_grad, test_is_trainable_leaf
"""
from __future__ import annotations

import torch


def make_trainable(data, device="cpu"):
    return torch.tensor(data, dtype=torch.float64, device=device, requires_grad=True).float()


def is_trainable_leaf(t):
    return t.requires_grad
