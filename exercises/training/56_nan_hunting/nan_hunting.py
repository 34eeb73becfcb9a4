from __future__ import annotations

from torch import Tensor, nn


def first_nonfinite_module(model: nn.Module, x: Tensor) -> str | None:
    """Returns the name of the first leaf module whose output on x is not finite, 'input' when x itself is not finite, or None."""
    raise NotImplementedError


def nonfinite_grads(model: nn.Module) -> list[str]:
    """Returns the names of the parameters whose gradient holds a NaN or an infinity."""
    raise NotImplementedError


def backward_with_anomaly_detection(loss: Tensor) -> str | None:
    """Back-propagates loss with anomaly detection on. Returns None on success, or the name of the backward node that produced NaN."""
    raise NotImplementedError
