"""Reference solution for 11_leaf_tensors."""
from __future__ import annotations

from typing import Any

import torch
from torch import Tensor


def make_trainable(data: Any, device: torch.device | str = "cpu") -> Tensor:
    """float32 LEAF tensor on device with requires_grad=True holding data (int data allowed)."""
    # Create it directly with the final dtype and device: nothing happens to it afterwards, so it
    # stays a leaf. (requires_grad=True on integer data would raise.)
    values = torch.tensor(data, dtype=torch.float32, device=device)
    return values.requires_grad_(True)


def is_trainable_leaf(t: Tensor) -> bool:
    """True iff t is a leaf that will receive .grad on backward()."""
    return bool(t.is_leaf and t.requires_grad)
