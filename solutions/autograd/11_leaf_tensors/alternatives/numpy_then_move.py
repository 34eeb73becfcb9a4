"""A correct alternative: convert through NumPy, move to the device, and only then ask for gradients."""
from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import Tensor


def make_trainable(data: Any, device: torch.device | str = "cpu") -> Tensor:
    """float32 LEAF tensor on device with requires_grad=True holding data (int data allowed)."""
    values = torch.from_numpy(np.array(data, dtype=np.float32)).to(device)
    # requires_grad_ comes last: the move above is not recorded, so the result is a leaf
    return values.requires_grad_()


def is_trainable_leaf(t: Tensor) -> bool:
    """True iff t is a leaf that will receive .grad on backward()."""
    return bool(t.is_leaf) and bool(t.requires_grad)
