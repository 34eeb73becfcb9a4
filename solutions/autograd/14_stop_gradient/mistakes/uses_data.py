"""Goes around autograd with `.data` (in the TD target and in the EMA update). The numbers come out
right, but `.data` hides the change from autograd's version counter, so a later backward through
a graph that saved those tensors silently uses the new values instead of raising. The exercise
forbids it.

Caught by: test_no_dot_data
"""
from __future__ import annotations


def td_loss(q_pred, reward, next_q, gamma):
    return ((q_pred - (reward + gamma * next_q.data)) ** 2).mean()


def ema_update_(target, online, tau):
    for p_t, p_o in zip(target.parameters(), online.parameters()):
        p_t.data.mul_(1.0 - tau).add_(tau * p_o.data)
    for b_t, b_o in zip(target.buffers(), online.buffers()):
        b_t.data.copy_(b_o.data)
