"""Public checks for 18_custom_mlp_module: run them with `grader check 18`."""
import torch

from grader.testing import assert_shape, check


@check("shape")
def test_forward_shape(sub):
    model = sub.MLP(8, [16], 3)
    assert_shape(model(torch.randn(5, 8)), (5, 3))


@check("state")
def test_registered_layers(sub):
    model = sub.MLP(8, [16, 4], 3)
    keys = list(model.state_dict())
    assert "layers.0.weight" in keys and "head.weight" in keys, f"unexpected state_dict keys {keys}"
