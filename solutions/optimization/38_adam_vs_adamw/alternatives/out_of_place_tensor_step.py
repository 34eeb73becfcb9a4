"""Out-of-place arithmetic with a 0-dim tensor step counter: the new values are computed as fresh
tensors and written back with copy_; AdamW's decay as param - lr * wd * param."""
from __future__ import annotations

import torch


def adam_update(param, grad, state, lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, decoupled=False):
    b1, b2 = betas
    if not state:
        state["step"] = torch.tensor(0.0)
        state["exp_avg"] = torch.zeros_like(param)
        state["exp_avg_sq"] = torch.zeros_like(param)
    state["step"] = state["step"] + 1
    t = state["step"].item()
    with torch.no_grad():
        p = param.detach()
        g = grad.detach()
        if decoupled:
            p = p - lr * weight_decay * p
        elif weight_decay:
            g = g + weight_decay * p
        m = b1 * state["exp_avg"] + (1 - b1) * g
        v = b2 * state["exp_avg_sq"] + (1 - b2) * g * g
        state["exp_avg"].copy_(m)
        state["exp_avg_sq"].copy_(v)
        m_hat = m / (1 - b1 ** t)
        v_hat = v / (1 - b2 ** t)
        param.copy_(p - lr * m_hat / (v_hat.sqrt() + eps))
