"""Public checks for 19_parameters_and_buffers: run them with `grader check 19`."""
import torch

from grader.testing import assert_close, assert_shape, base_state_dict, check


@check("shape")
def test_worked_example(sub):
    model = sub.RunningStandardizer(3)
    out = model(torch.tensor([[1.0, 2.0, 3.0], [3.0, 4.0, 5.0]]))
    assert_shape(out, (2, 3))
    assert_close(model.running_mean, torch.tensor([0.2, 0.3, 0.4]), what="running_mean after one train batch")
    assert_close(model.running_var, torch.tensor([1.1, 1.1, 1.1]), what="running_var after one train batch")


@check("state")
def test_state_dict_keys(sub):
    keys = sorted(base_state_dict(sub, sub.RunningStandardizer(4)))  # torch's registries, not an override
    assert keys == ["bias", "running_mean", "running_var", "weight"], \
        f"state_dict keys are {keys}: eps must be a buffer that is not saved"
