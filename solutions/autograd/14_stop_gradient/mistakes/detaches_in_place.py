"""Stops the gradient with `next_q.detach_()`: the loss is right and next_q gets no gradient, but
the caller's own next_q is cut from its graph (and a leaf stops requiring grad) as a side effect.

Caught by: test_td_target_gets_no_grad
"""
from __future__ import annotations

import torch


def td_loss(q_pred, reward, next_q, gamma):
    return ((q_pred - (reward + gamma * next_q.detach_())) ** 2).mean()


def ema_update_(target, online, tau):
    online_params = dict(online.named_parameters())
    online_buffers = dict(online.named_buffers())
    with torch.no_grad():
        for name, p_t in target.named_parameters():
            p_t.mul_(1.0 - tau).add_(online_params[name], alpha=tau)
        for name, b_t in target.named_buffers():
            b_t.copy_(online_buffers[name])
