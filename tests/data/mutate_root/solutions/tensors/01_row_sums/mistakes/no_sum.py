"""Returns the input.

Caught by: test_shape, test_values
"""
import torch


def row_sums(x: torch.Tensor) -> torch.Tensor:
    return x
