"""Torch's multi-tensor (`_foreach_*`) kernels: one norm launch and one multiply launch for all
grads, the way the built-in does it on GPUs."""
from __future__ import annotations

import math
from collections.abc import Iterable

import torch
from torch import Tensor


def clip_grad_norm(parameters: Iterable[Tensor], max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False) -> Tensor:
    """Rescale grads in place so their joint norm <= max_norm (coef = max_norm/(total+1e-6) clamped to 1); return the pre-clip total norm as a 0-dim tensor."""
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    grads = [p.grad.detach() for p in params if p.grad is not None]
    if len(grads) == 0:
        return torch.tensor(0.0)
    norms = torch._foreach_norm(grads, norm_type)
    if math.isinf(norm_type):
        total = torch.stack(norms).amax()
    else:
        total = torch.stack(norms).pow(norm_type).sum().pow(1.0 / norm_type)
    if error_if_nonfinite and bool(total.isnan() | total.isinf()):
        raise RuntimeError("non-finite total gradient norm")
    factor = (max_norm / (total + 1e-6)).clamp(max=1.0)
    torch._foreach_mul_(grads, factor)
    return total


def clip_grad_value(parameters: Iterable[Tensor], clip_value: float) -> None:
    """Clamp every grad element into [-clip_value, clip_value] in place."""
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    grads = [p.grad.detach() for p in params if p.grad is not None]
    if grads:
        torch._foreach_clamp_min_(grads, -clip_value)
        torch._foreach_clamp_max_(grads, clip_value)
