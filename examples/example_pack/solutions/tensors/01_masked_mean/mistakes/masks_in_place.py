"""Zeroes the padding of the caller's tensor in place (masked_fill_): the value is right, the
caller's x is not.

Caught by: test_input_untouched
"""

import torch


def masked_mean(x: torch.Tensor, mask: torch.Tensor, dim: int) -> torch.Tensor:
    x.masked_fill_(~mask, 0)
    return x.sum(dim=dim) / mask.sum(dim=dim).clamp(min=1).to(x.dtype)
