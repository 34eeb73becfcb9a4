"""Public checks for 71_export_for_serving: run them with `grader check 71`."""
import torch
from torch import nn

from grader.testing import assert_close, check


def _model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)).eval()


@check("api")
def test_returns_an_exported_program(sub):
    program = sub.export_for_serving(_model(), torch.randn(3, 4), "model.pt2")
    assert program.remote_type == "torch.export.exported_program.ExportedProgram", (
        f"expected the torch.export.ExportedProgram back, got {program.remote_type}")


def _load_and_run(raw, x):
    """Runs in a fresh process that never imports your code."""
    import io

    import torch

    program = torch.export.load(io.BytesIO(raw))
    with torch.no_grad():
        return program.module()(x)


@check("value")
def test_artifact_loads_without_your_code(sub):
    model = _model()
    x = torch.randn(3, 4)
    sub.export_for_serving(model, torch.randn(3, 4), "model.pt2")
    got = sub.verify(_load_and_run, sub.read_file("model.pt2"), x)
    with torch.no_grad():
        assert_close(got, model(x), what="the saved program's output")
