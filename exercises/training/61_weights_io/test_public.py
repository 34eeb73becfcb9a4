"""Public checks for 61_weights_io: run them with `grader check 61`.

`load_weights` returns a model, so it is called inside a probe (a function that runs next to your
code) and plain values come back.
"""
import torch
from torch import nn

from grader.testing import check


def _factory():
    return nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Dropout(0.5), nn.Linear(8, 3))


def _round_trip(mod, x):
    torch.manual_seed(0)
    model = _factory()
    model(x)                                      # one forward in training mode, as during training
    mod.save_weights(model, "example.pt")
    loaded = mod.load_weights(_factory, "example.pt")
    model.eval()
    with torch.no_grad():
        return torch.equal(loaded(x), model(x)), loaded.training


@check("value")
def test_count_excludes_buffers(sub):
    model = _factory()
    assert sub.count_parameters(model) == 83


@check("value")
def test_save_then_load_gives_same_outputs(sub):
    same, training = sub.probe(_round_trip, sub, torch.randn(5, 4))
    assert training is False, "load_weights should return the model in eval mode"
    assert same, "the loaded model's outputs differ from the original's (in eval mode)"
