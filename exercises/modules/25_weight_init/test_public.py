"""Public checks for 25_weight_init: run them with `grader check 25`."""
import torch

from grader.testing import check


@check("value")
def test_gpt2_linear_std(sub):
    def run(mod):
        from torch import nn

        model = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 10))
        mod.init_weights_(model, "gpt2")
        return model[0].weight.detach().clone(), model[0].bias.detach().clone()

    weight, bias = sub.probe(run, sub)
    assert abs(weight.std().item() - 0.02) < 0.001, f"gpt2: Linear weight std is {weight.std().item():.4g}, expected 0.02"
    assert torch.count_nonzero(bias) == 0, "biases must be 0 after init"


@check("value")
def test_default_bound_example(sub):
    b = sub.default_linear_bound(256)
    # compared as numbers are (relative 1e-6): a bound derived through float32 is the same bound
    assert isinstance(b, float) and abs(b - 0.0625) <= 1e-6 * 0.0625, f"default_linear_bound(256) should be 1/16, got {b!r}"
