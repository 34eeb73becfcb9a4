"""Computes the new parameter out of place and returns it: the caller's param never changes.

Caught by: test_matches_torch_adam, test_bias_correction, test_first_step_decay_difference
"""
from __future__ import annotations

import math
from typing import Any

import torch
from torch import Tensor


def adam_update(param: Tensor, grad: Tensor, state: dict[str, Any], lr: float, betas: tuple[float, float] = (0.9, 0.999),
                eps: float = 1e-8, weight_decay: float = 0.0, decoupled: bool = False) -> None:
    """One in-place step: Adam with L2-in-gradient (decoupled=False) or AdamW (decoupled=True: param *= 1 - lr*wd first); state keys 'step', 'exp_avg', 'exp_avg_sq' created lazily."""
    beta1, beta2 = betas
    with torch.no_grad():
        if "step" not in state:
            state["step"] = 0
            state["exp_avg"] = torch.zeros_like(param, memory_format=torch.preserve_format)
            state["exp_avg_sq"] = torch.zeros_like(param, memory_format=torch.preserve_format)
        state["step"] += 1
        step = state["step"]
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        if weight_decay != 0:
            if decoupled:
                param = param * (1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        denom = (exp_avg_sq.sqrt() / math.sqrt(bias_correction2)).add_(eps)
        return param - lr / bias_correction1 * exp_avg / denom
