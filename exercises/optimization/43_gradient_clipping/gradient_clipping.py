from __future__ import annotations

from collections.abc import Iterable

from torch import Tensor


def clip_grad_norm(parameters: Iterable[Tensor], max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False) -> Tensor:
    """Clips the gradients of parameters in place by norm, as torch.nn.utils.clip_grad_norm_ does. Returns the total norm before clipping as a 0-dim tensor."""
    raise NotImplementedError


def clip_grad_value(parameters: Iterable[Tensor], clip_value: float) -> None:
    """Clamps every gradient element into [-clip_value, clip_value] in place."""
    raise NotImplementedError
