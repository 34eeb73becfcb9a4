"""Hands the work to torch's own clipping functions: the values are right, but the exercise is
to write the norm and the scaling (the built-ins are forbidden).

Caught by: test_no_torch_clipping
"""
from __future__ import annotations

from collections.abc import Iterable

from torch import Tensor, nn


def clip_grad_norm(parameters: Iterable[Tensor], max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False) -> Tensor:
    """Rescale grads in place so their joint norm <= max_norm (coef = max_norm/(total+1e-6) clamped to 1); return the pre-clip total norm as a 0-dim tensor."""
    return nn.utils.clip_grad_norm_(parameters, max_norm, norm_type=norm_type, error_if_nonfinite=error_if_nonfinite)


def clip_grad_value(parameters: Iterable[Tensor], clip_value: float) -> None:
    """Clamp every grad element into [-clip_value, clip_value] in place."""
    nn.utils.clip_grad_value_(parameters, clip_value)
