"""Hidden checks for 71_torchscript_export.

The candidate's `export_torchscript` runs in a probe on models built there (their classes are
defined here and travel by value); the file it writes is read back with `sub.read_file` and loaded
with `torch.jit.load` only in the verifier, a worker that never imports the submission nor the
model classes, so only a self-contained TorchScript archive runs there. The verifier never calls
`.eval()` on what it loads: the artifact must already be an inference artifact. Expected outputs
are the eager model's, in eval mode, computed here in the judge on the same weights.
"""
import copy

import torch
from torch import nn

from grader.testing import assert_close, check, requires_cuda

FEATURES = 6


# The models with classes of their own are built from this source, as a module of its own, in the
# judge and in the worker: torch.jit.script reads a class's source, and the worker cannot read the
# exercise's files, so the source travels as text and is registered with linecache there.
MODELS = """
import torch
from torch import nn


class Branchy(nn.Module):
    # data-dependent control flow: a trace keeps only the branch its example took
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 5)

    def forward(self, x):
        h = self.fc(x)
        if x.mean() > 0:
            return torch.relu(h)
        return torch.tanh(h)


class Unscriptable(nn.Module):
    # sum over a generator of tensors: torch.jit.script refuses it, torch.jit.trace records it
    def __init__(self):
        super().__init__()
        self.branches = nn.ModuleList([nn.Sequential(nn.Linear(6, 8), nn.BatchNorm1d(8)) for _ in range(2)])
        self.drop = nn.Dropout(0.5)
        self.head = nn.Linear(8, 3)

    def forward(self, x):
        h = sum(branch(x) for branch in self.branches)
        return self.head(self.drop(torch.relu(h)))
"""
MODELS_NAME = "torchscript_export_models"
MODELS_FILE = "<torchscript_export_models>"


def _models():
    """MODELS as the module `torchscript_export_models`, its source in linecache (inspect finds it)."""
    import linecache
    import sys
    import types

    module = sys.modules.get(MODELS_NAME)
    if module is None:
        module = types.ModuleType(MODELS_NAME)
        module.__file__ = MODELS_FILE
        linecache.cache[MODELS_FILE] = (len(MODELS), None, MODELS.splitlines(True), MODELS_FILE)
        exec(compile(MODELS, MODELS_FILE, "exec"), module.__dict__)
        sys.modules[MODELS_NAME] = module
    return module


def _build(spec):
    """A model from a spec: an nn.Module as it is, or (class name in MODELS, state dict, training)."""
    if isinstance(spec, nn.Module):
        return spec
    name, state, train = spec
    model = getattr(_models(), name)()
    model.load_state_dict(state)
    return model.train(train)


def _spec(model):
    """What travels to the worker for a model of a MODELS class: its class name, state and mode."""
    return type(model).__name__, model.state_dict(), model.training


def _branchy():
    torch.manual_seed(0)
    return _models().Branchy().eval()


def _bn_net(train=True):
    """Linear-BatchNorm-ReLU-Dropout-Linear with running statistics moved off their initial values."""
    torch.manual_seed(1)
    net = nn.Sequential(nn.Linear(FEATURES, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.5), nn.Linear(16, 4))
    with torch.no_grad():
        for _ in range(3):
            net(torch.randn(32, FEATURES) * 2 + 1)
    return net.train(train)


def _unscriptable(train=True):
    torch.manual_seed(2)
    net = _models().Unscriptable()
    with torch.no_grad():
        for _ in range(3):
            net(torch.randn(32, FEATURES) * 2 - 1)
    return net.train(train)


def _expected(model, *inputs):
    """The eager model's eval-mode outputs, on a copy (the judge's model keeps its mode)."""
    reference_model = copy.deepcopy(model).eval()
    with torch.no_grad():
        return [reference_model(x) for x in inputs]


def _export(mod, spec, example, path, inputs):
    """Runs in the worker: export through the candidate; observe the original model through torch's
    registries and the returned module through torch's own classes."""
    import torch

    from grader import probes

    model = _build(spec)
    originals = {id(m) for _, m in probes.modules(model)}
    before = {k: v.clone() for k, v in probes.state_dict(model).items()}
    flags = [(name, m.__dict__.get("training")) for name, m in probes.modules(model)]
    with probes.spy("torch.nn.Module.to", "torch.nn.Module.cpu", "torch.nn.Module.cuda", "torch.nn.Module._apply",
                    module=mod) as moves:
        returned = mod.export_torchscript(model, example, path)
    after = probes.state_dict(model)
    seen = {"moved": sorted({name for name, args, _ in moves.calls if args and id(args[0]) in originals}),
            "flags": flags == [(name, m.__dict__.get("training")) for name, m in probes.modules(model)],
            "flags_after": [(name, m.__dict__.get("training")) for name, m in probes.modules(model)],
            "state": sorted(before) == sorted(after) and all(torch.equal(before[k], after[k]) for k in before),
            "type": probes.qualified_name(returned), "same": returned is model}
    if type(returned) is torch.jit.RecursiveScriptModule:
        seen["params"] = [name for name, _ in torch.nn.Module.named_parameters(returned)]
        with torch.no_grad():
            seen["outs"] = [torch.nn.Module.__call__(returned, x) for x in inputs]
        seen["outs"] = [y.detach().clone() if isinstance(y, torch.Tensor) else probes.qualified_name(y)
                        for y in seen["outs"]]
    return seen


def _artifact(raw, inputs, device="cpu", map_location="cpu"):
    """Runs in the verifier (never imports the submission): list the archive, load it with
    torch.jit.load and run it as it is (no .eval() here), twice per input on `device`."""
    import io
    import zipfile

    import torch

    report = {"names": None, "error": None, "params": None, "outs": [], "again": []}
    try:
        report["names"] = zipfile.ZipFile(io.BytesIO(raw)).namelist()
    except Exception:                                   # noqa: BLE001 - not a zip: reported
        pass
    try:
        loaded = torch.jit.load(io.BytesIO(raw), map_location=map_location)
    except Exception as exc:                            # noqa: BLE001 - reported, the check fails on it
        report["error"] = f"{type(exc).__name__}: {str(exc).strip()[:400]}"
        return report
    report["params"] = [name for name, _ in loaded.named_parameters()]
    for x in inputs:
        for into in (report["outs"], report["again"]):
            try:
                with torch.no_grad():
                    y = loaded(x.to(device))
            except Exception as exc:                    # noqa: BLE001 - reported, the check fails on it
                into.append(f"{type(exc).__name__}: {str(exc).strip()[:200]}")
                continue
            into.append({"device": y.device.type, "value": y.detach().cpu().clone()}
                        if isinstance(y, torch.Tensor) else type(y).__name__)
    return report


def _run(sub, model, example, inputs, path="model.pt"):
    """Export in the worker, load the artifact in the verifier: (what the worker saw, what the verifier saw)."""
    spec = model if type(model) is nn.Sequential else _spec(model)
    seen = sub.probe(_export, sub, spec, example, path, inputs)
    return seen, sub.verify(_artifact, sub.read_file(path), inputs)


def _loaded(report):
    assert report["error"] is None, (
        f"a process that never imported your code could not torch.jit.load the file: {report['error']}")


def _outputs(report, expected, what):
    _loaded(report)
    for i, (got, want) in enumerate(zip(report["outs"], expected)):
        assert isinstance(got, dict), f"the loaded artifact failed on {what[i]}: {got}"
        assert_close(got["value"], want, what=f"the artifact's output on {what[i]}")


# ---------------------------------------------------------------- values

@check("value", weight=2)
def test_branch_survives_export(sub):
    model = _branchy()
    torch.manual_seed(3)
    positive, negative = torch.randn(7, FEATURES) + 2, torch.randn(7, FEATURES) - 2
    _, report = _run(sub, model, torch.randn(4, FEATURES) + 2, [positive, negative])
    _outputs(report, _expected(model, positive, negative),
             ["a positive-mean input (the example's branch)",
              "a negative-mean input: the other branch of `if x.mean() > 0` (a trace keeps only the example's)"])


@check("value")
def test_trace_fallback(sub):
    model = _unscriptable(train=True)
    torch.manual_seed(4)
    inputs = [torch.randn(5, FEATURES), torch.randn(2, FEATURES)]
    _, report = _run(sub, model, torch.randn(4, FEATURES), inputs)
    _outputs(report, _expected(model, *inputs), ["a batch of 5 (model torch.jit.script cannot compile)",
                                                 "a batch of 2 (model torch.jit.script cannot compile)"])
    assert all(isinstance(a, dict) and torch.equal(a["value"], b["value"])
               for a, b in zip(report["outs"], report["again"])), \
        "two runs of the traced artifact on one batch differ: was it traced in eval mode?"


# ---------------------------------------------------------------- mode

@check("mode", weight=2)
def test_artifact_in_eval_mode(sub):
    model = _bn_net(train=True)
    torch.manual_seed(5)
    x = torch.randn(9, FEATURES)
    _, report = _run(sub, model, torch.randn(4, FEATURES), [x])
    _loaded(report)
    first, second = report["outs"][0], report["again"][0]
    assert isinstance(first, dict) and isinstance(second, dict), f"the loaded artifact failed on a batch: {first}"
    assert torch.equal(first["value"], second["value"]), (
        "two runs of the loaded artifact on the same batch differ: Dropout is active (export in eval mode)")
    assert_close(first["value"], _expected(model, x)[0],
                 what="the artifact's output (BatchNorm should use its running statistics: eval mode)")


def _export_each(mod, specs, example):
    """Runs in the worker: one export per model, each to its own file."""
    return [_export(mod, spec, example, f"model{i}.pt", []) for i, spec in enumerate(specs)]


@check("mode")
def test_mode_restored(sub):
    for seen, mode in zip(sub.probe(_export_each, sub, [_bn_net(train=True), _bn_net(train=False)],
                                    torch.randn(4, FEATURES)), ("train", "eval")):
        assert seen["type"] == "torch.jit._script.RecursiveScriptModule", (
            f"export_torchscript should return the exported ScriptModule, got {seen['type']}")
        changed = [name or "<model>" for name, flag in seen["flags_after"] if flag is not (mode == "train")]
        assert seen["flags"], f"the model was given in {mode} mode; after export these modules are not: {changed}"


# ---------------------------------------------------------------- state

@check("state")
def test_original_untouched(sub):
    # a scriptable model and one that only a trace exports, both given in training mode
    specs = [_bn_net(train=True), _spec(_unscriptable(train=True))]
    for seen, what in zip(sub.probe(_export_each, sub, specs, torch.randn(4, FEATURES) * 3 + 2),
                          ("a scriptable model", "a model that only torch.jit.trace exports")):
        assert seen["type"] == "torch.jit._script.RecursiveScriptModule", (
            f"export_torchscript should return the exported ScriptModule, got {seen['type']}")
        assert seen["state"], (f"exporting {what} changed its parameters or buffers (BatchNorm running statistics "
                               "move whenever the model runs in training mode)")


@check("state")
def test_frozen(sub):
    model = _bn_net(train=False)
    torch.manual_seed(6)
    x = torch.randn(5, FEATURES)
    seen, report = _run(sub, model, torch.randn(4, FEATURES), [x])
    assert seen["type"] == "torch.jit._script.RecursiveScriptModule", (
        f"export_torchscript should return the frozen ScriptModule, got {seen['type']}")
    assert seen["params"] == [], (
        f"the returned module still has parameters {seen['params']}: torch.jit.freeze inlines them as constants")
    assert isinstance(seen["outs"][0], torch.Tensor), f"the returned module gave {seen['outs'][0]}"
    assert_close(seen["outs"][0], _expected(model, x)[0], what="the returned module's output")
    _loaded(report)
    assert report["params"] == [], (
        f"the saved artifact still has parameters {report['params']}: save the frozen module")


# ---------------------------------------------------------------- api

@check("api")
def test_archive_format(sub):
    model = _bn_net(train=False)
    x = torch.randn(3, FEATURES)
    _, report = _run(sub, model, torch.randn(4, FEATURES), [x])
    names = report["names"]
    assert names is not None, "the file is not a zip archive: write it with torch.jit.save"
    code = [n for n in names if n.split("/")[1:3] == ["code", "__torch__"]]
    constants = [n for n in names if n.split("/")[1:] == ["constants.pkl"]]
    assert code and constants, (
        "the file is not a TorchScript archive (no */code/__torch__/... and */constants.pkl entries): write it with "
        f"torch.jit.save, not torch.save; it holds {sorted(names)[:8]}")
    _outputs(report, _expected(model, x), ["a batch of 3"])


# ---------------------------------------------------------------- shape, dtype

@check("shape")
def test_batch_sizes(sub):
    model = _bn_net(train=True)
    torch.manual_seed(7)
    inputs = [torch.randn(1, FEATURES), torch.randn(13, FEATURES)]
    _, report = _run(sub, model, torch.randn(4, FEATURES), inputs)
    _loaded(report)
    for got, n in zip(report["outs"], (1, 13)):
        assert isinstance(got, dict), f"the artifact (exported with a batch of 4) fails on a batch of {n}: {got}"
        assert tuple(got["value"].shape) == (n, 4), f"a batch of {n} gave shape {tuple(got['value'].shape)}"
    _outputs(report, _expected(model, *inputs), ["a batch of 1", "a batch of 13"])


@check("dtype")
def test_output_dtype(sub):
    model = _bn_net(train=False)
    x = torch.randn(5, FEATURES)
    seen, report = _run(sub, model, torch.randn(4, FEATURES), [x])
    _loaded(report)
    got = report["outs"][0]
    assert isinstance(got, dict), f"the loaded artifact failed on a float32 batch: {got}"
    assert got["value"].dtype == torch.float32, f"the artifact's output is {got['value'].dtype}, expected float32"
    returned = seen.get("outs", [None])[0]
    assert isinstance(returned, torch.Tensor) and returned.dtype == torch.float32, (
        f"the returned module's output should be a float32 tensor, got {returned!r}")
    _outputs(report, _expected(model, x), ["a batch of 5"])


# ---------------------------------------------------------------- device

@check("device")
def test_model_not_moved(sub):
    # CPU fallback of the CUDA check: the artifact keeps the model's device, nothing moves the model.
    model = _bn_net(train=True)
    x = torch.randn(3, FEATURES)
    seen, report = _run(sub, model, torch.randn(4, FEATURES), [x])
    assert seen["type"] == "torch.jit._script.RecursiveScriptModule", (
        f"export_torchscript should return the exported ScriptModule, got {seen['type']}")
    assert not seen["moved"], f"the model was moved ({seen['moved']} called on it): export it where it is"
    _outputs(report, _expected(model, x), ["a CPU batch"])
    assert report["outs"][0]["device"] == "cpu"


def _export_cuda(mod, path):
    import torch

    torch.manual_seed(1)
    net = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.BatchNorm1d(16), torch.nn.ReLU(),
                              torch.nn.Dropout(0.5), torch.nn.Linear(16, 4)).cuda()
    state = {k: v.detach().cpu().clone() for k, v in net.state_dict().items()}
    mod.export_torchscript(net, torch.randn(4, 6, device="cuda"), path)
    return state, sorted({p.device.type for p in net.parameters()}), net.training


@requires_cuda
@check("device")
def test_cuda_export(sub):
    state, devices, training = sub.probe(_export_cuda, sub, "cuda.pt")
    assert devices == ["cuda"] and training, "the CUDA model should stay on CUDA, in its training mode"
    x = torch.randn(6, FEATURES)
    report = sub.verify(_artifact, sub.read_file("cuda.pt"), [x], "cuda", None)  # where it was saved
    _loaded(report)
    got = report["outs"][0]
    assert isinstance(got, dict) and got["device"] == "cuda", f"the artifact should run on CUDA inputs, got {got}"
    model = nn.Sequential(nn.Linear(FEATURES, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.5), nn.Linear(16, 4))
    model.load_state_dict(state)
    assert_close(got["value"], _expected(model, x)[0], atol=1e-4, rtol=1e-3, what="the CUDA artifact's output")
