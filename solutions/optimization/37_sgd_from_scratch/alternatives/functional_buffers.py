"""Out-of-place arithmetic: a new buffer tensor each step, stored back into the state dict, and the
parameter updated with copy_; hyperparameters validated by a helper."""
from __future__ import annotations

import torch


def _check(lr, momentum, nesterov):
    if not lr >= 0:
        raise ValueError("lr must be non-negative")
    if nesterov and not momentum > 0:
        raise ValueError("nesterov needs momentum > 0")


class MomentumSGD(torch.optim.Optimizer):
    def __init__(self, params, lr, momentum=0.0, weight_decay=0.0, nesterov=False):
        _check(lr, momentum, nesterov)
        super().__init__(params, dict(lr=lr, momentum=momentum, weight_decay=weight_decay, nesterov=nesterov))

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                g = p.grad + group["weight_decay"] * p if group["weight_decay"] else p.grad.clone()
                m = group["momentum"]
                if m:
                    old = self.state[p].get("momentum_buffer")
                    buf = g.clone() if old is None else m * old + g
                    self.state[p]["momentum_buffer"] = buf
                    g = g + m * buf if group["nesterov"] else buf
                p.copy_(p - group["lr"] * g)
        return loss
