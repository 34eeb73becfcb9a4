"""Public checks for 30_stable_activations: run them with `grader check 30`."""
import torch

from grader.testing import assert_close, check


@check("value")
def test_softmax_example(sub):
    x = torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    p = sub.softmax(x, 1)
    assert_close(p, torch.tensor([[0.0900306, 0.2447285, 0.6652410], [1 / 3, 1 / 3, 1 / 3]]))


@check("value")
def test_log_softmax_large_logits(sub):
    x = torch.tensor([[1000.0, 0.0, -1000.0]])
    assert_close(sub.log_softmax(x, 1), torch.tensor([[0.0, -1000.0, -2000.0]]),
                 what="log_softmax([[1000, 0, -1000]], 1): finite, no overflow")


@check("value")
def test_leaky_relu_example(sub):
    x = torch.tensor([-2.0, -0.5, 0.0, 1.5])
    assert_close(sub.leaky_relu(x), torch.tensor([-0.02, -0.005, 0.0, 1.5]))
    assert_close(sub.leaky_relu(x, 0.2), torch.tensor([-0.4, -0.1, 0.0, 1.5]))
