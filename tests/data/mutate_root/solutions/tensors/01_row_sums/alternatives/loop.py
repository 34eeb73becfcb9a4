"""A correct alternative: sums each row with a loop."""
import torch


def row_sums(x: torch.Tensor) -> torch.Tensor:
    return torch.stack([row.sum() for row in x])
