"""Public checks for 05_broadcast_bias: run them with `grader check 05`."""
import torch

from grader.testing import assert_close, assert_shape, check


@check("shape")
def test_feature_bias_example(sub):
    x, bias = torch.zeros(2, 3), torch.tensor([1.0, 2.0, 3.0])
    out = sub.add_feature_bias(x, bias)
    assert_shape(out, (2, 3))
    assert_close(out, torch.tensor([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]))


@check("value")
def test_sample_bias_example(sub):
    x, bias = torch.zeros(2, 3), torch.tensor([10.0, 20.0])
    assert_close(sub.add_sample_bias(x, bias), torch.tensor([[10.0] * 3, [20.0] * 3]))


@check("value")
def test_pairwise_example(sub):
    a = torch.tensor([[0.0, 0.0], [3.0, 4.0]])
    b = torch.tensor([[0.0, 0.0]])
    assert_close(sub.pairwise_sq_dists(a, b), torch.tensor([[0.0], [25.0]]))
