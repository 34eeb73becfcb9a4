"""Public checks for 21_linear_semantics: run them with `grader check 21`."""
import numpy as np
import torch

from grader.testing import assert_close, check


@check("value")
def test_manual_linear_example(sub):
    x, weight, bias = torch.randn(5, 4), torch.randn(3, 4), torch.randn(3)
    assert_close(sub.manual_linear(x, weight, bias), x @ weight.T + bias)


@check("value")
def test_ported_layer_example(sub):
    kernel = np.arange(6, dtype=np.float32).reshape(2, 3)     # stored (in, out)
    bias = np.ones(3, dtype=np.float32)
    layer = sub.linear_from_in_out(kernel, bias)
    x = torch.tensor([[1.0, 2.0]])
    assert_close(layer(x), torch.tensor([[7.0, 10.0, 13.0]]), what="layer(x) == x @ kernel + bias")
