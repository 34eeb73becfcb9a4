"""Divides by the count of real entries without keeping it at least one: an all-padding slice
gives 0 / 0 = NaN.

Caught by: test_empty_slice_is_zero
"""

import torch


def masked_mean(x: torch.Tensor, mask: torch.Tensor, dim: int) -> torch.Tensor:
    return x.masked_fill(~mask, 0).sum(dim=dim) / mask.sum(dim=dim)
