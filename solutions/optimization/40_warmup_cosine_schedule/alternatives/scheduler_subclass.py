"""A scheduler class of its own (an LRScheduler subclass with get_lr), the position kept in the
base class's last_epoch, and run_steps recording the lr with get_last_lr() before stepping."""
from __future__ import annotations

import math

import torch


class WarmupCosine(torch.optim.lr_scheduler.LRScheduler):
    def __init__(self, optimizer, warmup_steps, total_steps, min_lr_ratio=0.0):
        if total_steps <= warmup_steps:
            raise ValueError("total_steps must be larger than warmup_steps")
        self.warmup_steps, self.total_steps, self.min_lr_ratio = warmup_steps, total_steps, min_lr_ratio
        super().__init__(optimizer)

    def get_lr(self):
        s, w, t, r = self.last_epoch, self.warmup_steps, self.total_steps, self.min_lr_ratio
        if s < w:
            scale = (s + 1) / w
        else:
            scale = r + (1 - r) * (1 + math.cos(math.pi * (s - w) / (t - w))) / 2
        return [base * scale for base in self.base_lrs]


def make_warmup_cosine(optimizer, warmup_steps, total_steps, min_lr_ratio=0.0):
    return WarmupCosine(optimizer, warmup_steps, total_steps, min_lr_ratio)


def run_steps(optimizer, scheduler, closure, n_steps):
    used = []
    for _ in range(n_steps):
        optimizer.zero_grad(set_to_none=True)
        loss = closure()
        loss.backward()
        used.append(scheduler.get_last_lr()[0])
        optimizer.step()
        scheduler.step()
    return [float(x) for x in used]
