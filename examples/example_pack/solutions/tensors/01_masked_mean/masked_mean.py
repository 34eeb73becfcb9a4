"""Reference solution of 01_masked_mean."""

import torch


def masked_mean(x: torch.Tensor, mask: torch.Tensor, dim: int) -> torch.Tensor:
    kept = x.masked_fill(~mask, 0)
    count = mask.sum(dim=dim)  # int64: dividing a floating tensor by it keeps that tensor's dtype
    return kept.sum(dim=dim) / count.clamp(min=1)
