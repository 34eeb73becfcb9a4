"""Built from torch's pieces: a LambdaLR warmup, then a LambdaLR cosine with the floor, joined by
SequentialLR at W (or the cosine alone when W = 0); run_steps accumulates into a preallocated list."""
from __future__ import annotations

import math

import torch
from torch.optim.lr_scheduler import LambdaLR, SequentialLR


def make_warmup_cosine(optimizer, warmup_steps, total_steps, min_lr_ratio=0.0):
    if not total_steps > warmup_steps:
        raise ValueError(f"need total_steps > warmup_steps, got {total_steps} <= {warmup_steps}")
    span = total_steps - warmup_steps

    def cosine(k):
        return min_lr_ratio + (1.0 - min_lr_ratio) * (1.0 + math.cos(math.pi * k / span)) / 2.0

    if warmup_steps == 0:
        return LambdaLR(optimizer, cosine)
    warm = LambdaLR(optimizer, lambda k: (k + 1) / warmup_steps)
    decay = LambdaLR(optimizer, cosine)
    return SequentialLR(optimizer, [warm, decay], milestones=[warmup_steps])


def run_steps(optimizer, scheduler, closure, n_steps):
    lrs = [0.0] * n_steps
    for i in range(n_steps):
        optimizer.zero_grad()
        closure().backward()
        lrs[i] = optimizer.param_groups[0]["lr"] * 1.0
        optimizer.step()
        scheduler.step()
    return lrs
