"""Public checks for 72_onnx_export: run them with `grader check 72`.

The file your `export_onnx` writes is opened with `onnx` and run with `onnxruntime` (CPU) in a
separate process, never in yours.
"""
import torch
from torch import nn

from grader.testing import assert_close, check


def _model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(5, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Dropout(0.2), nn.Linear(8, 2)).eval()


def _weight_files(raw):
    """Runs apart from your code: the files the graph keeps weights in (the dynamo exporter writes
    them next to it, as `<name>.data`, by default)."""
    import onnx
    from onnx.external_data_helper import ExternalDataInfo, _get_all_tensors, uses_external_data

    model = onnx.load_model_from_string(raw)
    return sorted({ExternalDataInfo(t).location for t in _get_all_tensors(model) if uses_external_data(t)})


def _run(files, batches):
    """Runs apart from your code, in a scratch folder of its own: the graph's input/output names
    and onnxruntime's outputs."""
    import onnx
    import onnxruntime

    for name, data in files.items():
        with open(name, "wb") as f:
            f.write(data)
    graph = onnx.load("example.onnx").graph
    initializers = {t.name for t in graph.initializer}
    names = ([i.name for i in graph.input if i.name not in initializers], [o.name for o in graph.output])
    session = onnxruntime.InferenceSession("example.onnx", providers=["CPUExecutionProvider"])
    return names, [session.run(None, {names[0][0]: b})[0] for b in batches]


def _exported(sub):
    raw = sub.read_file("example.onnx")
    return {"example.onnx": raw, **{name: sub.read_file(name) for name in sub.verify(_weight_files, raw)}}


@check("api")
def test_names_and_any_batch_size(sub):
    sub.export_onnx(_model(), torch.randn(3, 5), "example.onnx")
    (inputs, outputs), results = sub.verify(_run, _exported(sub),
                                            [torch.randn(1, 5).numpy(), torch.randn(9, 5).numpy()])
    assert inputs == ["features"] and outputs == ["logits"], f"graph inputs {inputs}, outputs {outputs}"
    assert [r.shape for r in results] == [(1, 2), (9, 2)], "the graph should accept any batch size"


@check("value")
def test_matches_eager_eval(sub):
    model, x = _model(), torch.randn(3, 5)
    sub.export_onnx(model, x, "example.onnx")
    _, (got,) = sub.verify(_run, _exported(sub), [x.numpy()])
    with torch.no_grad():
        assert_close(torch.from_numpy(got), model(x), atol=1e-4, rtol=1e-4)
