"""torch.where instead of masked_fill, and the count as a float from the start."""

import torch


def masked_mean(x: torch.Tensor, mask: torch.Tensor, dim: int) -> torch.Tensor:
    weights = mask.to(x.dtype)
    total = torch.where(mask, x, torch.zeros((), dtype=x.dtype)).sum(dim)
    return total / weights.sum(dim).clamp_min(1.0)
