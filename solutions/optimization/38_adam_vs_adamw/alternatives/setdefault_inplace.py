"""State through setdefault, in-place mul_/add_ averages, the L2 term through torch.add, and the
bias corrections folded into the step size and eps (the form of the Adam paper)."""
from __future__ import annotations

import math

import torch


def adam_update(param, grad, state, lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, decoupled=False):
    beta1, beta2 = betas
    state["step"] = state.setdefault("step", 0) + 1
    m = state.setdefault("exp_avg", torch.zeros_like(param))
    v = state.setdefault("exp_avg_sq", torch.zeros_like(param))
    n = state["step"]
    with torch.no_grad():
        if weight_decay and decoupled:
            param.mul_(1.0 - lr * weight_decay)
        g = torch.add(grad, param, alpha=weight_decay) if weight_decay and not decoupled else grad
        m.mul_(beta1).add_(g, alpha=1.0 - beta1)
        v.mul_(beta2).add_(g * g, alpha=1.0 - beta2)
        c1, c2 = 1.0 - beta1 ** n, math.sqrt(1.0 - beta2 ** n)
        param.sub_(lr * m / c1 / (v.sqrt() / c2 + eps))
