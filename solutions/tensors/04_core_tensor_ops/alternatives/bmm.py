"""A correct alternative: torch.stack on a tuple, bmm, and where() on the quotient."""
from __future__ import annotations

import torch


def batch_from_samples(samples):
    return torch.stack(tuple(samples))


def concat_batches(batches):
    return torch.cat([b for b in batches], 0)


def gram_matrix(x):
    return torch.bmm(x, x.mT)


def row_normalize(x):
    sums = x.sum(dim=1, keepdim=True)
    zero = sums == 0
    return torch.where(zero, 0.0, x / torch.where(zero, 1.0, sums))
