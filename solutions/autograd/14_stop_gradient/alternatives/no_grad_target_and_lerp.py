"""A correct alternative: the TD target built under no_grad with F.mse_loss; EMA with lerp_ over zipped modules."""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn


def td_loss(q_pred: Tensor, reward: Tensor, next_q: Tensor, gamma: float) -> Tensor:
    """mean((q_pred - (reward + gamma * next_q))**2) with NO gradient flowing into next_q."""
    with torch.no_grad():
        target = reward + gamma * next_q
    return F.mse_loss(q_pred, target)


@torch.no_grad()
def ema_update_(target: nn.Module, online: nn.Module, tau: float) -> None:
    """In place, without autograd history: p_t <- (1 - tau) * p_t + tau * p_o for all parameters; buffers are copied from online."""
    for p_t, p_o in zip(target.parameters(), online.parameters()):
        p_t.lerp_(p_o, tau)  # p_t + tau * (p_o - p_t)
    for b_t, b_o in zip(target.buffers(), online.buffers()):
        b_t.copy_(b_o)
