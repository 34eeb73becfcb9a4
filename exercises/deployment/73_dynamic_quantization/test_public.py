"""Public checks for 73_dynamic_quantization: run them with `grader check 73`."""
import io

import torch
from torch import nn

from grader.testing import check


def _model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(16, 16), nn.ReLU(), nn.Dropout(0.5), nn.Linear(16, 4))


@check("api")
def test_returns_a_quantized_copy(sub):
    model = _model()
    q = sub.quantize_linear_layers(model)
    assert q.remote_type == "torch.nn.modules.container.Sequential", f"expected a Sequential back, got {q.remote_type}"
    assert q[0].remote_type == "torch.nn.modules.linear.Linear", f"the first layer should still be an nn.Linear, got {q[0].remote_type}"
    assert q.training is False, "the quantized copy should be in eval mode"


@check("value")
def test_outputs_near_fp32(sub):
    model = _model().train()  # the copy must still run in eval mode: Dropout off
    x = torch.randn(8, 16)
    with torch.no_grad():
        got = sub.quantize_linear_layers(model)(x)
        expected = model.eval()(x)
    error = (got - expected).abs().max().item()
    assert error <= 5e-2 * expected.abs().max().item(), f"quantized output is {error:.3g} away from fp32"


@check("value")
def test_serialized_size(sub):
    model = _model()
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    assert sub.serialized_size_bytes(model) == len(buffer.getvalue())
