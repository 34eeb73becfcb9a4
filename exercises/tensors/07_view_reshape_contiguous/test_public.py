"""Public checks for 07_view_reshape_contiguous: run them with `grader check 07`."""
import torch

from grader.testing import assert_close, assert_shape, check


@check("shape")
def test_split_heads_example(sub):
    x = torch.arange(24.0).reshape(1, 2, 12)        # B=1, T=2, H*D=12
    heads = sub.split_heads(x, 3)                    # H=3, D=4
    assert_shape(heads, (1, 3, 2, 4))
    assert_close(heads[0, 1], torch.tensor([[4.0, 5.0, 6.0, 7.0], [16.0, 17.0, 18.0, 19.0]]))


@check("value")
def test_round_trip_example(sub):
    x = torch.randn(2, 5, 12)
    heads = sub.split_heads(x, 3)
    assert_shape(heads, (2, 3, 5, 4))
    assert_close(sub.merge_heads(heads), x)


@check("value")
def test_flatten_time_major_example(sub):
    x = torch.tensor([[[1.0], [2.0], [3.0]], [[10.0], [20.0], [30.0]]])   # B=2, T=3, F=1
    assert_close(sub.flatten_time_major(x), torch.tensor([[1.0], [10.0], [2.0], [20.0], [3.0], [30.0]]))
