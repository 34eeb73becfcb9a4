"""Updates the target parameters in place without torch.no_grad(): autograd refuses an in-place
operation on a leaf that requires grad ("a leaf Variable that requires grad is being used in an
in-place operation"), so the update raises as soon as the target is trainable.

Caught by: test_ema_with_grad_params, test_ema_values_and_buffers, test_target_params_still_leaves
"""
from __future__ import annotations


def td_loss(q_pred, reward, next_q, gamma):
    return ((q_pred - (reward + gamma * next_q.detach())) ** 2).mean()


def ema_update_(target, online, tau):
    for p_t, p_o in zip(target.parameters(), online.parameters()):
        p_t.mul_(1.0 - tau).add_(tau * p_o)
    for b_t, b_o in zip(target.buffers(), online.buffers()):
        b_t.copy_(b_o)
