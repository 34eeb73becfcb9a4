"""Hand-written in log space with F.logsigmoid; shape rules written as explicit cases; prediction
by comparing logits with logit(threshold)."""
from __future__ import annotations

import math

import torch.nn.functional as F


def binary_loss(logits, targets, pos_weight=None):
    ls, ts = tuple(logits.shape), tuple(targets.shape)
    if ls != ts:
        if ls[-1:] == (1,) and ls[:-1] == ts:
            logits = logits.reshape(ts)
        elif ts[-1:] == (1,) and ts[:-1] == ls:
            targets = targets.reshape(ls)
        else:
            raise ValueError(f"cannot match logits {ls} with targets {ts}")
    y = targets.to(dtype=logits.dtype)
    pos = F.logsigmoid(logits)
    neg = F.logsigmoid(-logits)
    if pos_weight is not None:
        pos = pos * pos_weight.to(device=logits.device, dtype=logits.dtype)
    return -(y * pos + (1 - y) * neg).mean()


def multilabel_predict(logits, threshold=0.5):
    return logits >= math.log(threshold / (1.0 - threshold))
