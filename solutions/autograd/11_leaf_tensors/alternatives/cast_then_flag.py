"""A correct alternative: build, cast with .float(), then set the requires_grad attribute; leaf test via grad_fn."""
from __future__ import annotations

from typing import Any

import torch
from torch import Tensor


def make_trainable(data: Any, device: torch.device | str = "cpu") -> Tensor:
    """float32 LEAF tensor on device with requires_grad=True holding data (int data allowed)."""
    t = torch.tensor(data, device=device).float()  # nothing requires grad yet, so the cast is still a leaf
    t.requires_grad = True
    return t


def is_trainable_leaf(t: Tensor) -> bool:
    """True iff t is a leaf that will receive .grad on backward()."""
    # a tensor that requires grad is a leaf exactly when no operation created it
    return t.requires_grad and t.grad_fn is None
