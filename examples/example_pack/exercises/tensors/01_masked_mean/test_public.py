"""Public checks of 01_masked_mean: examples you can run with `grader check masked_mean`."""

import torch

from grader.testing import assert_close, assert_shape, check


@check("value")
def test_worked_example(sub):
    x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    mask = torch.tensor([[True, False, True], [False, False, False]])
    assert_close(sub.masked_mean(x, mask, 1), torch.tensor([2.0, 0.0]))


@check("shape")
def test_shape_drops_dim(sub):
    x = torch.arange(24, dtype=torch.float32).reshape(2, 3, 4)
    mask = torch.ones(2, 3, 4, dtype=torch.bool)
    assert_shape(sub.masked_mean(x, mask, 1), (2, 4))
