"""Public checks for 17_custom_autograd_function: run them with `grader check 17`."""
import torch

from grader.testing import assert_close, check


@check("value")
def test_sign_example(sub):
    x = torch.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
    assert_close(sub.SignSTE.apply(x), torch.tensor([-1.0, -1.0, 1.0, 1.0, 1.0]))


@check("grad")
def test_sign_straight_through_example(sub):
    x = torch.tensor([-2.0, -0.5, 0.0, 0.5, 2.0], requires_grad=True)
    sub.SignSTE.apply(x).sum().backward()
    assert_close(x.grad, torch.tensor([0.0, 1.0, 1.0, 1.0, 0.0]))


@check("value")
def test_logsumexp_example(sub):
    x = torch.tensor([[0.0, 0.0], [1000.0, 1000.0]])
    # log(e^0 + e^0) = log 2; log(2 e^1000) = 1000 + log 2
    expected = torch.tensor([0.6931472, 1000.6931472])
    assert_close(sub.StableLogSumExp.apply(x, 1), expected)
