"""Hidden check of the fixture, deliberately weak: a symmetric input cannot tell rows from columns."""
import torch

from grader.testing import assert_close, check


@check("value")
def test_values(sub):
    a = torch.randn(4, 4, dtype=torch.float64)
    x = a + a.T
    assert_close(sub.row_sums(x), x.sum(dim=1))
