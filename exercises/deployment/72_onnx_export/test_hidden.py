"""Hidden checks for 72_onnx_export.

The candidate's `export_onnx` runs in the worker on a small Linear-BatchNorm-ReLU-Dropout-Linear
model whose BatchNorm running statistics were moved by a few train-mode forwards (so a graph
exported in training mode, on batch statistics, gives other numbers). The file it writes is read
back with `sub.read_file` and opened only in the verifier (a worker that never imports the
submission): `onnx.checker`, the graph's names, opset and input shape, and onnxruntime's CPU
execution provider. Expected outputs are the eager eval-mode outputs of the judge's own copy of
the model. Exporting is the slow part (the dynamo exporter takes about a second and a half in a
fresh worker), so every check exports exactly once and makes all its observations on that one
artifact.
"""
import copy
import pathlib

import pytest
import torch
from torch import nn

from grader.testing import assert_close, check, requires_cuda

IN, OUT = 6, 3


def _net(seed=0, train=True):
    """Linear-BatchNorm-ReLU-Dropout-Linear with running statistics away from their initial values."""
    torch.manual_seed(seed)
    net = nn.Sequential(nn.Linear(IN, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.5), nn.Linear(16, OUT))
    with torch.no_grad():
        for _ in range(3):
            net(torch.randn(32, IN) * 2 + 1)
    return net.train(train)


def _eval_outputs(model, *batches):
    frozen = copy.deepcopy(model).cpu().eval()
    with torch.no_grad():
        return [frozen(b.cpu()) for b in batches]


def _external_files(raw):
    """Runs in the verifier: the files the graph's initializers keep their data in (the dynamo
    exporter writes the weights next to the graph, `<name>.data`, by default)."""
    import onnx
    from onnx.external_data_helper import ExternalDataInfo, _get_all_tensors, uses_external_data

    try:
        model = onnx.load_model_from_string(raw)
    except Exception:  # noqa: BLE001 - _inspect reports it
        return []
    return sorted({ExternalDataInfo(t).location for t in _get_all_tensors(model) if uses_external_data(t)})


def _inspect(raw, external, batches):
    """Runs in the verifier: what the ONNX file says about itself, and what onnxruntime computes
    with it on the CPU for each batch (fed to the graph's first input, whatever its name).
    `external` holds the bytes of the files its initializers refer to, put into the graph here in
    memory: nothing is read from a path the file names."""
    import numpy as np
    import onnx
    import onnxruntime
    from onnx.external_data_helper import ExternalDataInfo, _get_all_tensors, uses_external_data

    report = {"error": None, "checker": None, "inputs": [], "outputs": [], "opset": None,
              "dims": [], "output_dims": [], "input_type": None, "output_types": [], "runs": []}
    try:
        model = onnx.load_model_from_string(raw)
        for tensor in _get_all_tensors(model):
            if uses_external_data(tensor):
                info = ExternalDataInfo(tensor)
                blob = external.get(info.location, b"")
                end = len(blob) if info.length is None else info.offset + info.length
                tensor.raw_data = blob[info.offset or 0:end]
                tensor.data_location = onnx.TensorProto.DEFAULT
                del tensor.external_data[:]
        raw = model.SerializeToString()
    except Exception as exc:  # noqa: BLE001 - reported, the check fails on it
        report["error"] = f"onnx could not read the file: {type(exc).__name__}: {str(exc)[:200]}"
        return report
    try:
        onnx.checker.check_model(model)
    except Exception as exc:  # noqa: BLE001 - reported, the check fails on it
        report["checker"] = f"{type(exc).__name__}: {str(exc)[:300]}"
    initializers = {t.name for t in model.graph.initializer}
    inputs = [i for i in model.graph.input if i.name not in initializers]
    report["inputs"] = [i.name for i in inputs]
    report["outputs"] = [o.name for o in model.graph.output]
    versions = [o.version for o in model.opset_import if o.domain in ("", "ai.onnx")]
    report["opset"] = max(versions) if versions else None
    type_name = onnx.TensorProto.DataType.Name

    def dims(value_info):
        return [("param", d.dim_param) if d.HasField("dim_param")
                else ("value", d.dim_value) if d.HasField("dim_value") else ("unknown", "")
                for d in value_info.type.tensor_type.shape.dim]

    if inputs:
        report["input_type"] = type_name(inputs[0].type.tensor_type.elem_type)
        report["dims"] = dims(inputs[0])
    if model.graph.output:
        report["output_dims"] = dims(model.graph.output[0])
    report["output_types"] = [type_name(o.type.tensor_type.elem_type) for o in model.graph.output]
    if not inputs:
        return report
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    try:
        session = onnxruntime.InferenceSession(raw, options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # noqa: BLE001 - reported, the check fails on it
        report["error"] = f"onnxruntime could not load the file: {type(exc).__name__}: {str(exc)[:300]}"
        return report
    for batch in batches:
        try:
            got = session.run(None, {inputs[0].name: batch})
        except Exception as exc:  # noqa: BLE001 - reported per batch
            report["runs"].append(f"{type(exc).__name__}: {str(exc)[:300]}")
            continue
        first = got[0] if got else None
        report["runs"].append(np.array(first) if isinstance(first, np.ndarray) else f"a {type(first).__name__}")
    return report


def _inspect_file(sub, path, batches):
    """Read the exported file (and its external data files, next to it) from the worker's scratch
    and inspect them in the verifier."""
    raw = sub.read_file(str(path))
    folder = pathlib.PurePosixPath(str(path)).parent
    external = {}
    for location in sub.verify(_external_files, raw):
        try:
            external[location] = sub.read_file(str(folder / location))
        except Exception:  # noqa: BLE001 - a missing or out-of-scratch file: _inspect reports the missing data
            external[location] = b""
    return sub.verify(_inspect, raw, external, [b.numpy() for b in batches])


def _export_and_inspect(sub, model, example, batches, path="model.onnx", **opset):
    sub.export_onnx(model, example, path, **opset)
    return _inspect_file(sub, path, batches)


def _ran(report, i, what):
    assert report["error"] is None, report["error"]
    run = report["runs"][i] if i < len(report["runs"]) else "no run"
    assert not isinstance(run, str), f"onnxruntime could not run the exported graph on {what}: {run}"
    return torch.from_numpy(run)


@pytest.mark.parametrize("opset", [None, 20], ids=["default-opset", "opset20"])
@check("api")
def test_graph_contract(sub, opset):
    model, example = _net(seed=1, train=False), torch.randn(4, IN)
    report = _export_and_inspect(sub, model, example, [example],
                                 **({} if opset is None else {"opset": opset}))
    assert report["error"] is None, report["error"]
    assert report["checker"] is None, f"onnx.checker.check_model rejects the exported file: {report['checker']}"
    assert report["inputs"] == ["features"], f"the graph's inputs should be ['features'], got {report['inputs']}"
    assert report["outputs"] == ["logits"], f"the graph's outputs should be ['logits'], got {report['outputs']}"
    want = 17 if opset is None else opset
    assert report["opset"] == want, (
        f"export_onnx(..., opset={want}) wrote a graph of ONNX opset {report['opset']}: pass the opset to the exporter")
    _ran(report, 0, "the example batch")


@check("shape")
def test_dynamic_batch(sub):
    model, example = _net(seed=2, train=False), torch.randn(4, IN)
    one, nine = torch.randn(1, IN), torch.randn(9, IN)
    report = _export_and_inspect(sub, model, example, [one, nine])
    assert report["error"] is None, report["error"]
    assert len(report["dims"]) == 2, f"the graph's input should have 2 dims (batch, {IN}), it declares {report['dims']}"
    kind, value = report["dims"][0]
    assert kind == "param" and value, (
        f"the input's batch dimension should be symbolic (a named dim_param), it is {kind} {value!r}: "
        "the exported graph only accepts the example's batch size")
    out_dims = report["output_dims"]
    assert len(out_dims) == 2 and out_dims[0][0] == "param" and out_dims[0][1] and out_dims[1] == ("value", OUT), (
        f"the graph's output should be declared (batch, {OUT}) with a symbolic batch, it is {out_dims}")
    for i, (batch, what) in enumerate([(one, "a batch of 1"), (nine, "a batch of 9")]):
        got = _ran(report, i, what)
        assert tuple(got.shape) == (batch.shape[0], OUT), (
            f"on {what} the graph returned shape {tuple(got.shape)}, expected {(batch.shape[0], OUT)}")


@check("value", weight=2)
def test_runtime_parity(sub):
    model = _net(seed=3, train=True)          # given in training mode: the export must still be eval-mode
    example, other = torch.randn(4, IN) * 2 + 1, torch.randn(4, IN)
    expected = _eval_outputs(model, example, other)
    report = _export_and_inspect(sub, model, example, [example, other])
    for i, what in enumerate(["the example", "another batch of the same size"]):
        got = _ran(report, i, what)
        assert_close(got, expected[i], atol=1e-4, rtol=1e-4,
                     what=f"onnxruntime's output on {what} (vs the model's eager eval-mode output)")


def _mode_probe(mod, model, example, path):
    from grader import probes

    before = [(name, m.__dict__.get("training")) for name, m in probes.modules(model)]
    mod.export_onnx(model, example, path)
    after = [(name, m.__dict__.get("training")) for name, m in probes.modules(model)]
    return before, after


@pytest.mark.parametrize("mode", ["train", "eval"])
@check("mode")
def test_mode_restored(sub, mode):
    model, example = _net(seed=4, train=mode == "train"), torch.randn(4, IN)
    path = pathlib.Path("exported.onnx")     # a PathLike, which the contract allows
    before, after = sub.probe(_mode_probe, sub, model, example, path)
    report = _inspect_file(sub, path, [example])
    _ran(report, 0, "the example batch")       # an export happened: a function that does nothing keeps the mode too
    changed = [name or "(the model)" for (name, was), (_, now) in zip(before, after) if was != now]
    assert not changed, (
        f"after export_onnx, the training flag of {changed} is no longer what it was ({mode} mode): "
        "restore the model's mode once the export is done")


@check("dtype")
def test_output_float32(sub):
    model, example = _net(seed=5, train=False), torch.randn(4, IN)
    report = _export_and_inspect(sub, model, example, [example])
    assert report["error"] is None, report["error"]
    assert report["input_type"] == "FLOAT" and report["output_types"] == ["FLOAT"], (
        f"the graph should take and return float32 tensors; it declares input {report['input_type']}, "
        f"outputs {report['output_types']}")
    got = _ran(report, 0, "a float32 batch")
    assert got.dtype == torch.float32, f"onnxruntime returned {got.dtype}, expected torch.float32"


@requires_cuda
@check("device")
def test_cuda_model_exports(sub):
    model = _net(seed=6, train=True).cuda()
    example = torch.randn(4, IN, device="cuda")
    other = torch.randn(7, IN)
    expected = _eval_outputs(model, example, other)
    report = _export_and_inspect(sub, model, example, [example.cpu(), other])
    for i, what in enumerate(["the example", "a batch of 7"]):
        got = _ran(report, i, what)
        assert_close(got, expected[i], atol=1e-4, rtol=1e-4,
                     what=f"onnxruntime's (CPU) output on {what} of a model exported from CUDA")
