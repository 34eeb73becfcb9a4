"""Public checks for 29_hooks: run them with `grader check 29`."""
from collections import OrderedDict

import torch
from torch import nn

from grader.testing import assert_close, check


def _model():
    torch.manual_seed(0)
    return nn.Sequential(OrderedDict(fc1=nn.Linear(4, 6), act=nn.ReLU(), fc2=nn.Linear(6, 2)))


@check("shape")
def test_capture_two_layers(sub):
    model, x = _model(), torch.randn(3, 4)
    got = sub.capture_activations(model, x, ["fc1", "fc2"])
    assert isinstance(got, dict) and sorted(got) == ["fc1", "fc2"], f"expected a dict with fc1 and fc2, got {got!r}"
    with torch.no_grad():
        assert_close(got["fc1"], model.fc1(x), what="fc1's output")
        assert_close(got["fc2"], model(x), what="fc2's output (the model's output)")


@check("value")
def test_grad_norm_of_output(sub):
    # for loss = out.sum(), dLoss/d(out) is all ones: its norm is sqrt(out.numel())
    model, x = _model(), torch.randn(3, 4)
    got = sub.activation_grad_norms(model, x, lambda out: out.sum(), ["fc2"])
    assert isinstance(got, dict) and sorted(got) == ["fc2"], f"expected a dict with fc2, got {got!r}"
    assert_close(got["fc2"], 6 ** 0.5, atol=1e-6, rtol=1e-6, what="norm of dLoss/d(fc2 output)")
