"""Reference solution for 14_stop_gradient."""
from __future__ import annotations

import torch
from torch import Tensor, nn


def td_loss(q_pred: Tensor, reward: Tensor, next_q: Tensor, gamma: float) -> Tensor:
    """mean((q_pred - (reward + gamma * next_q))**2) with NO gradient flowing into next_q."""
    # detach(): this one tensor is a constant for the loss; q_pred keeps its graph.
    target = reward + gamma * next_q.detach()
    return ((q_pred - target) ** 2).mean()


def ema_update_(target: nn.Module, online: nn.Module, tau: float) -> None:
    """In place, without autograd history: p_t <- (1 - tau) * p_t + tau * p_o for all parameters; buffers are copied from online."""
    online_params = dict(online.named_parameters())
    online_buffers = dict(online.named_buffers())
    # no_grad(): in-place updates of leaves that require grad are allowed and leave no history;
    # the Parameter objects (and an optimizer holding them) stay the same.
    with torch.no_grad():
        for name, p_t in target.named_parameters():
            p_t.mul_(1.0 - tau).add_(online_params[name], alpha=tau)
        for name, b_t in target.named_buffers():
            b_t.copy_(online_buffers[name])
