"""Averages every floating-point entry of the state_dict, BatchNorm running statistics included,
and skips the integer `num_batches_tracked`: buffers must be copied from the online network, not
mixed.

Caught by: test_ema_values_and_buffers
"""
from __future__ import annotations

import torch


def td_loss(q_pred, reward, next_q, gamma):
    return ((q_pred - (reward + gamma * next_q.detach())) ** 2).mean()


def ema_update_(target, online, tau):
    online_state = online.state_dict()
    with torch.no_grad():
        for name, value in target.state_dict().items():   # detached views of params and buffers
            if value.is_floating_point():
                value.mul_(1.0 - tau).add_(online_state[name], alpha=tau)
