"""Computes the mix out of place and installs it as brand-new nn.Parameter objects. The values are
right, but the target's parameters are no longer the objects an optimizer (or anything else)
holds, and their .grad is lost.

Caught by: test_param_identity, test_target_params_still_leaves
"""
from __future__ import annotations

import torch
from torch import nn


def td_loss(q_pred, reward, next_q, gamma):
    return ((q_pred - (reward + gamma * next_q.detach())) ** 2).mean()


def ema_update_(target, online, tau):
    online_params = dict(online.named_parameters())
    online_buffers = dict(online.named_buffers())
    with torch.no_grad():
        for name, p_t in list(target.named_parameters()):
            module_name, _, attr = name.rpartition(".")
            module = target.get_submodule(module_name) if module_name else target
            mixed = (1.0 - tau) * p_t + tau * online_params[name]
            setattr(module, attr, nn.Parameter(mixed, requires_grad=p_t.requires_grad))
        for name, b_t in target.named_buffers():
            b_t.copy_(online_buffers[name])
