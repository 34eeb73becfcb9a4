"""Public checks for 08_inplace_safety: run them with `grader check 08`."""
import torch

from grader.testing import assert_close, check


@check("value")
def test_scale_shift_example(sub):
    x = torch.tensor([1.0, 2.0, 3.0])
    assert_close(sub.scale_shift(x, 2.0, 1.0), torch.tensor([3.0, 5.0, 7.0]))


@check("value")
def test_scale_shift_inplace_example(sub):
    x = torch.tensor([1.0, 2.0, 3.0])
    assert_close(sub.scale_shift_(x, 2.0, 1.0), torch.tensor([3.0, 5.0, 7.0]))


@check("grad")
def test_sigmoid_then_scale_example(sub):
    x = torch.zeros(3, requires_grad=True)
    out = sub.sigmoid_then_scale(x, 4.0)
    assert_close(out, torch.full((3,), 2.0), check_dtype=True)
    out.sum().backward()       # sigmoid'(0) = 1/4, times the scale 4
    assert_close(x.grad, torch.ones(3))
