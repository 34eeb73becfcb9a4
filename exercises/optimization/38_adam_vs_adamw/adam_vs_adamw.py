from __future__ import annotations

from typing import Any

from torch import Tensor


def adam_update(param: Tensor, grad: Tensor, state: dict[str, Any], lr: float, betas: tuple[float, float] = (0.9, 0.999),
                eps: float = 1e-8, weight_decay: float = 0.0, decoupled: bool = False) -> None:
    """Apply one Adam step (decoupled=False) or AdamW step (decoupled=True) to param in place. The optimizer state for param is kept in state."""
    raise NotImplementedError
