"""Right values, computed with a Python loop over the slices of the dimension.

Caught by: test_no_python_loops
"""

import torch


def masked_mean(x: torch.Tensor, mask: torch.Tensor, dim: int) -> torch.Tensor:
    total = torch.zeros_like(x.select(dim, 0))
    count = torch.zeros_like(total)
    for i in range(x.shape[dim]):
        keep = mask.select(dim, i)
        total = total + torch.where(keep, x.select(dim, i), torch.zeros_like(total))
        count = count + keep.to(x.dtype)
    return total / count.clamp(min=1)
