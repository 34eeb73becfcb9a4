"""Creates the averages with torch.zeros(param.shape): float32 on the CPU whatever the param.

Caught by: test_meta_state_follows_param, test_cuda_state_stays_on_cuda
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
            state["exp_avg"] = torch.zeros(param.shape)
            state["exp_avg_sq"] = torch.zeros(param.shape)
        state["step"] += 1
        step = state["step"]
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        if weight_decay != 0:
            if decoupled:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        denom = (exp_avg_sq.sqrt() / math.sqrt(bias_correction2)).add_(eps)
        param.addcdiv_(exp_avg, denom, value=-lr / bias_correction1)
