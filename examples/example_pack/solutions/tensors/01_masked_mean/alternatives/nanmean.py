"""Padding as NaN, then nanmean; an all-padding slice's NaN becomes 0."""

import torch


def masked_mean(x: torch.Tensor, mask: torch.Tensor, dim: int) -> torch.Tensor:
    return torch.nan_to_num(x.masked_fill(~mask, float("nan")).nanmean(dim=dim), nan=0.0)
