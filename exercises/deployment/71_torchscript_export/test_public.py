"""Public checks for 71_torchscript_export: run them with `grader check 71`."""
import torch
from torch import nn

from grader.testing import assert_close, check


def _model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(0.5), nn.Linear(8, 2))


@check("state")
def test_returns_a_frozen_script_module(sub):
    model = _model()
    exported = sub.export_torchscript(model, torch.randn(3, 4), "model.pt")
    assert exported.remote_type == "torch.jit._script.RecursiveScriptModule", (
        f"expected the exported ScriptModule back, got {exported.remote_type}")
    assert list(exported.parameters()) == [], "a frozen module has no parameters left: they became constants"


@check("value")
def test_matches_eager_eval(sub):
    model = _model().train()
    x = torch.randn(5, 4)
    exported = sub.export_torchscript(model, torch.randn(3, 4), "model.pt")
    with torch.no_grad():
        got = exported(x)
        expected = model.eval()(x)
    assert_close(got, expected, what="the exported module's output (Dropout off: eval mode)")


def _load_and_run(raw, x):
    """Runs in a fresh process that never imports your code: only a TorchScript archive loads there."""
    import io

    import torch

    loaded = torch.jit.load(io.BytesIO(raw))
    with torch.no_grad():
        return loaded(x)


@check("api")
def test_artifact_loads_without_your_code(sub):
    model = _model().eval()
    x = torch.randn(2, 4)
    sub.export_torchscript(model, torch.randn(3, 4), "model.pt")
    got = sub.verify(_load_and_run, sub.read_file("model.pt"), x)
    with torch.no_grad():
        assert_close(got, model(x), what="the saved artifact's output")
