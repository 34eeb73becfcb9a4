"""Public checks for 18_custom_mlp_module: run them with `grader check 18`."""
import torch

from grader.testing import assert_shape, base_state_dict, check


@check("shape")
def test_forward_shape(sub):
    model = sub.MLP(8, [16], 3)
    assert_shape(model(torch.randn(5, 8)), (5, 3))


@check("state")
def test_registered_layers(sub):
    model = sub.MLP(8, [16, 4], 3)
    keys = list(base_state_dict(sub, model))  # torch's registries: an overridden state_dict is not asked
    missing = [k for k in ("layers.0.weight", "layers.1.weight", "head.weight") if k not in keys]
    assert not missing, f"state_dict has no {missing} (its keys: {keys}): register the layers as submodules"
