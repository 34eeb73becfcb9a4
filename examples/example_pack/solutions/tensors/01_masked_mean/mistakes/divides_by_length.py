"""Divides by the length of the dimension instead of the number of real entries: right only for
rows without padding.

Caught by: test_matches_reference
"""

import torch


def masked_mean(x: torch.Tensor, mask: torch.Tensor, dim: int) -> torch.Tensor:
    return x.masked_fill(~mask, 0).sum(dim=dim) / x.shape[dim]
