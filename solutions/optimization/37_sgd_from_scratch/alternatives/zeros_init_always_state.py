"""Multi-tensor style with torch._foreach_*: every parameter with a gradient gets a zero-initialised
momentum buffer (even with momentum 0: 0 * buf + d is d), updated as m * buf + d."""
from __future__ import annotations

import torch


class MomentumSGD(torch.optim.Optimizer):
    def __init__(self, params, lr, momentum=0.0, weight_decay=0.0, nesterov=False):
        if lr < 0:
            raise ValueError(f"lr={lr} < 0")
        if momentum < 0 or weight_decay < 0:
            raise ValueError("momentum and weight_decay must be >= 0")
        if nesterov and momentum == 0:
            raise ValueError("nesterov requires momentum")
        super().__init__(params, {"lr": lr, "momentum": momentum, "weight_decay": weight_decay,
                                  "nesterov": nesterov})

    def step(self, closure=None):
        loss = closure() if closure is not None else None
        with torch.no_grad():
            for group in self.param_groups:
                params = [p for p in group["params"] if p.grad is not None]
                if not params:
                    continue
                grads = [p.grad for p in params]
                if group["weight_decay"]:
                    grads = torch._foreach_add(grads, params, alpha=group["weight_decay"])
                for p in params:
                    if "momentum_buffer" not in self.state[p]:
                        self.state[p]["momentum_buffer"] = torch.zeros_like(p)
                bufs = [self.state[p]["momentum_buffer"] for p in params]
                torch._foreach_mul_(bufs, group["momentum"])
                torch._foreach_add_(bufs, grads)
                if group["nesterov"]:
                    steps = torch._foreach_add(grads, bufs, alpha=group["momentum"])
                else:
                    steps = bufs
                torch._foreach_add_(params, steps, alpha=-group["lr"])
        return loss
