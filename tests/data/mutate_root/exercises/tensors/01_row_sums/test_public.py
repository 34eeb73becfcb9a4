"""Public check of the fixture."""
import torch

from grader.testing import assert_shape, check


@check("shape")
def test_shape(sub):
    assert_shape(sub.row_sums(torch.ones(3, 3)), (3,))
