"""Avoids the in-place error by switching requires_grad off for the whole target, updating, and
switching it back on: every parameter comes back with requires_grad=True, including the ones the
caller had frozen.

Caught by: test_target_params_still_leaves
"""
from __future__ import annotations


def td_loss(q_pred, reward, next_q, gamma):
    return ((q_pred - (reward + gamma * next_q.detach())) ** 2).mean()


def ema_update_(target, online, tau):
    target.requires_grad_(False)
    for p_t, p_o in zip(target.parameters(), online.parameters()):
        p_t.mul_(1.0 - tau).add_(p_o.detach(), alpha=tau)
    for b_t, b_o in zip(target.buffers(), online.buffers()):
        b_t.copy_(b_o)
    target.requires_grad_(True)
