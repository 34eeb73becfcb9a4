"""Hands the step to torch's functional Adam.

Caught by: test_no_torch_optim
"""
from __future__ import annotations

import math
from typing import Any

import torch
from torch import Tensor
from torch.optim._functional import adam


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
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        steps = [torch.tensor(float(step - 1))]
        adam([param], [grad], [exp_avg], [exp_avg_sq], [], steps, foreach=False, amsgrad=False, beta1=beta1,
             beta2=beta2, lr=lr, weight_decay=0.0, eps=eps, maximize=False)
