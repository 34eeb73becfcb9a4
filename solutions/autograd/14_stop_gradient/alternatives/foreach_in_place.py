"""A correct alternative: the TD target detached as a whole; the EMA with torch's multi-tensor
in-place kernels (`torch._foreach_lerp_`, `torch._foreach_copy_`) under no_grad, which autograd's
version counters see like any in-place update (no `.data`)."""
from __future__ import annotations

import torch
from torch import Tensor, nn


def td_loss(q_pred: Tensor, reward: Tensor, next_q: Tensor, gamma: float) -> Tensor:
    """mean((q_pred - (reward + gamma * next_q))**2) with NO gradient flowing into next_q."""
    return (q_pred - (reward + gamma * next_q).detach()).square().mean()


def ema_update_(target: nn.Module, online: nn.Module, tau: float) -> None:
    """In place, without autograd history: p_t <- (1 - tau) * p_t + tau * p_o for all parameters; buffers are copied from online."""
    with torch.no_grad():
        torch._foreach_lerp_(list(target.parameters()), list(online.parameters()), tau)
        buffers = list(target.buffers())
        if buffers:
            torch._foreach_copy_(buffers, list(online.buffers()))
