"""Masked mean."""

import torch


def masked_mean(x: torch.Tensor, mask: torch.Tensor, dim: int) -> torch.Tensor:
    """The mean of `x` over `dim`, counting only the entries where `mask` is True."""
    raise NotImplementedError
