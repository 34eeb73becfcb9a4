"""Concatenates every grad into one flat vector, takes its norm in one call, and picks the factor
with `torch.where` and `torch.minimum`; clip by value writes through `out=`."""
from __future__ import annotations

from collections.abc import Iterable

import torch
from torch import Tensor


def _with_grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = (parameters,)
    return [p for p in parameters if p.grad is not None]


def clip_grad_norm(parameters: Iterable[Tensor], max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False) -> Tensor:
    """Rescale grads in place so their joint norm <= max_norm (coef = max_norm/(total+1e-6) clamped to 1); return the pre-clip total norm as a 0-dim tensor."""
    params = _with_grads(parameters)
    if not params:
        return torch.zeros(())
    flat = torch.cat([p.grad.detach().reshape(-1) for p in params])
    total = torch.linalg.vector_norm(flat, ord=norm_type)
    if error_if_nonfinite:
        if not torch.isfinite(total).item():
            raise RuntimeError(f"total norm {total} is not finite; cannot clip")
    coef = torch.minimum(max_norm / (total + 1e-6), torch.ones((), dtype=total.dtype, device=total.device))
    for p in params:
        p.grad.detach().mul_(coef.to(p.grad.dtype))
    return total


def clip_grad_value(parameters: Iterable[Tensor], clip_value: float) -> None:
    """Clamp every grad element into [-clip_value, clip_value] in place."""
    for p in _with_grads(parameters):
        g = p.grad.detach()
        torch.clamp(g, -clip_value, clip_value, out=g)
