"""Clamps into a new tensor and assigns it to .grad: the values are right, but the grad
tensors the optimizer (or a hook, or a caller holding a reference) sees are not the ones clipped.

Caught by: test_clip_grad_value_in_place
"""
from __future__ import annotations

from collections.abc import Iterable

import torch
from torch import Tensor


def clip_grad_norm(parameters: Iterable[Tensor], max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False) -> Tensor:
    """Rescale grads in place so their joint norm <= max_norm (coef = max_norm/(total+1e-6) clamped to 1); return the pre-clip total norm as a 0-dim tensor."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]   # one pass: a generator is read once
    if not grads:
        return torch.tensor(0.0)
    norm_type = float(norm_type)
    per_param = torch.stack([torch.linalg.vector_norm(g.detach(), norm_type) for g in grads])
    total = torch.linalg.vector_norm(per_param, norm_type)
    if error_if_nonfinite and not torch.isfinite(total):          # the only host read, and only when asked
        raise RuntimeError(f"the total norm of order {norm_type} of the gradients is non-finite")
    coef = torch.clamp(max_norm / (total + 1e-6), max=1.0)        # a tensor: no Python `if`, no sync
    for g in grads:
        g.detach().mul_(coef)
    return total


def clip_grad_value(parameters: Iterable[Tensor], clip_value: float) -> None:
    """Clamp every grad element into [-clip_value, clip_value] in place."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    for p in parameters:
        if p.grad is not None:
            p.grad = p.grad.clamp(min=-clip_value, max=clip_value)
