"""Reference solution of the fixture."""
import torch


def row_sums(x: torch.Tensor) -> torch.Tensor:
    """(N, F) -> (N,): the sum of each row."""
    return x.sum(dim=1)
