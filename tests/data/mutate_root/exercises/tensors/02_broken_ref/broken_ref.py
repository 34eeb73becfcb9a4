"""Row sums (test fixture)."""
import torch


def broken_ref(x: torch.Tensor) -> torch.Tensor:
    """(N, F) -> (N,): the sum of each row."""
    raise NotImplementedError
