"""Hidden checks for 71_export_for_serving.

The candidate's `export_for_serving` runs in a probe on models built there from a spec (class name,
state dict, every submodule's training flag); their classes are defined by `_classes()` where it
runs, so the worker and the judge have them and the verifier never does. The file the candidate
writes is read back with `sub.read_file` and loaded with `torch.export.load` only in the verifier,
a worker that never imports the submission nor the model classes: only a self-contained export
archive runs there. The verifier runs `program.module()` as loaded (an exported program's mode
cannot be switched afterwards). Expected outputs are the eager model's in eval mode, computed here
in the judge on the same weights.

A cold `torch.export.export` in a fresh worker takes a few seconds (imports and tracing), hence
exercise.toml's time limit and budget. Only the device check spies on module moves: the spy's call
watch slows a whole export down several times.
"""
import copy

import torch
from torch import nn

from grader.testing import assert_close, check, requires_cuda

FEATURES, CLASSES = 6, 4
PROGRAM = "torch.export.exported_program.ExportedProgram"


def _classes():
    """The test models' classes, defined where this runs: a pickle of a model needs them, the
    verifier has none of them."""
    import torch
    from torch import nn

    class Tower(nn.Module):
        # Linear-BatchNorm-ReLU-Dropout-Linear: eval and train mode give different functions
        def __init__(self):
            super().__init__()
            self.inp = nn.Linear(6, 16)
            self.norm = nn.BatchNorm1d(16)
            self.drop = nn.Dropout(0.5)
            self.out = nn.Linear(16, 4)

        def forward(self, x):
            return self.out(self.drop(torch.relu(self.norm(self.inp(x)))))

    class Gate(nn.Module):
        # data-dependent control flow written with torch.cond: both branches belong to the program
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(6, 4)

        def forward(self, x):
            return torch.cond(x.mean() > 0, lambda h: torch.relu(h), lambda h: torch.tanh(h), (self.fc(x),))

    return {"Tower": Tower, "Gate": Gate}


def _build(spec):
    """A model from (class name, state dict, [(submodule name, training flag)]), flags set one by one."""
    name, state, flags = spec
    model = _classes()[name]()
    model.load_state_dict(state)
    modes = dict(flags)
    for key, m in model.named_modules():
        m.training = modes[key]
    return model


def _spec(model):
    return type(model).__name__, model.state_dict(), [(k, m.training) for k, m in model.named_modules()]


MODES = {
    "train": lambda m: m.train(),
    "eval": lambda m: m.eval(),
    "train, BatchNorm frozen in eval": lambda m: (m.train(), m.norm.eval()),
    "eval, Dropout left in train": lambda m: (m.eval(), m.drop.train()),
}


def _tower(mode="train"):
    """A Tower whose BatchNorm running statistics moved off (0, 1), in the mode named."""
    torch.manual_seed(1)
    model = _classes()["Tower"]()
    model.train()
    with torch.no_grad():
        for _ in range(3):
            model(torch.randn(32, FEATURES) * 2 + 1)
    MODES[mode](model)
    return model


def _gate():
    torch.manual_seed(0)
    return _classes()["Gate"]().eval()


def _expected(model, *inputs):
    """The eager model's eval-mode outputs, on a copy (the judge's model keeps its modes)."""
    reference_model = copy.deepcopy(model).eval()
    with torch.no_grad():
        return [reference_model(x) for x in inputs]


def _export(mod, spec, example, path, inputs, watch_moves=False):
    """Runs in the worker: export through the candidate; observe the original model through torch's
    registries and the returned program through torch's own class. `watch_moves`: spy on the module
    moves (the spy's call watch slows a whole export down several times, so only the device check)."""
    import contextlib

    import torch

    from grader import probes

    model = _build(spec)
    originals = {id(m) for _, m in probes.modules(model)}
    before = {k: v.clone() for k, v in probes.state_dict(model).items()}
    flags = [(name, m.__dict__.get("training")) for name, m in probes.modules(model)]
    spy = probes.spy("torch.nn.Module.to", "torch.nn.Module.cpu", "torch.nn.Module.cuda", "torch.nn.Module._apply",
                     module=mod) if watch_moves else contextlib.nullcontext()
    with spy as moves:
        returned = mod.export_for_serving(model, example, path)
    after = probes.state_dict(model)
    seen = {"moved": sorted({name for name, args, _ in moves.calls if args and id(args[0]) in originals})
            if watch_moves else None,
            "flags_before": flags,
            "flags_after": [(name, m.__dict__.get("training")) for name, m in probes.modules(model)],
            "state": sorted(before) == sorted(after) and all(torch.equal(before[k], after[k]) for k in before),
            "type": probes.qualified_name(returned), "outs": None}
    if type(returned) is torch.export.ExportedProgram:
        served = torch.export.ExportedProgram.module(returned)
        seen["outs"] = []
        for x in inputs:
            try:
                with torch.no_grad():
                    y = served(x)
            except Exception as exc:                    # noqa: BLE001 - reported, the check fails on it
                seen["outs"].append(f"{type(exc).__name__}: {str(exc).strip()[:200]}")
                continue
            seen["outs"].append(y.detach().clone() if isinstance(y, torch.Tensor) else probes.qualified_name(y))
    return seen


def _artifact(raw, inputs, device="cpu"):
    """Runs in the verifier (never imports the submission nor the model classes): list the archive,
    load it with torch.export.load and run its module as loaded, twice per input, on `device`."""
    import io
    import zipfile

    import torch

    report = {"names": None, "error": None, "type": None, "outs": [], "again": []}
    try:
        report["names"] = zipfile.ZipFile(io.BytesIO(raw)).namelist()
    except Exception:                                   # noqa: BLE001 - not a zip: reported
        pass
    try:
        loaded = torch.export.load(io.BytesIO(raw))
        report["type"] = f"{type(loaded).__module__}.{type(loaded).__qualname__}"
        served = loaded.module()
    except Exception as exc:                            # noqa: BLE001 - reported, the check fails on it
        report["error"] = f"{type(exc).__name__}: {str(exc).strip()[:400]}"
        return report
    for x in inputs:
        for into in (report["outs"], report["again"]):
            try:
                with torch.no_grad():
                    y = served(x.to(device))
            except Exception as exc:                    # noqa: BLE001 - reported, the check fails on it
                into.append(f"{type(exc).__name__}: {str(exc).strip()[:200]}")
                continue
            into.append({"device": y.device.type, "value": y.detach().cpu().clone()}
                        if isinstance(y, torch.Tensor) else type(y).__name__)
    return report


def _run(sub, model, example, inputs, path="model.pt2", watch_moves=False):
    """Export in the worker, load the artifact in the verifier: (what the worker saw, what the verifier saw)."""
    seen = sub.probe(_export, sub, _spec(model), example, path, inputs, watch_moves)
    return seen, sub.verify(_artifact, sub.read_file(path), inputs)


def _loaded(report):
    assert report["error"] is None, (
        f"a process that never imported your code nor the model's class could not torch.export.load the file "
        f"and take its module: {report['error']}")


def _outputs(report, expected, what):
    _loaded(report)
    for i, (got, want) in enumerate(zip(report["outs"], expected)):
        assert isinstance(got, dict), f"the loaded program failed on {what[i]}: {got}"
        assert_close(got["value"], want, what=f"the loaded program's output on {what[i]}")


def _is_program(seen):
    assert seen["type"] == PROGRAM, f"export_for_serving should return the torch.export.ExportedProgram, got {seen['type']}"


# ---------------------------------------------------------------- values

@check("value", weight=2)
def test_matches_eager_eval(sub):
    model = _tower("eval")
    torch.manual_seed(3)
    inputs = [torch.randn(3, FEATURES), torch.randn(8, FEATURES) * 2]
    _, report = _run(sub, model, torch.randn(4, FEATURES), inputs)
    _outputs(report, _expected(model, *inputs), ["a batch of 3", "a batch of 8"])


@check("value")
def test_cond_branches(sub):
    model = _gate()
    torch.manual_seed(4)
    positive, negative = torch.randn(7, FEATURES) + 2, torch.randn(5, FEATURES) - 2
    _, report = _run(sub, model, torch.randn(4, FEATURES) + 2, [positive, negative])
    _outputs(report, _expected(model, positive, negative),
             ["a positive-mean batch (the example's branch of torch.cond)",
              "a negative-mean batch (the other branch of torch.cond)"])


# ---------------------------------------------------------------- mode

@check("mode", weight=2)
def test_artifact_in_eval_mode(sub):
    model = _tower("train")
    torch.manual_seed(5)
    x = torch.randn(9, FEATURES)
    _, report = _run(sub, model, torch.randn(4, FEATURES), [x])
    _loaded(report)
    first, second = report["outs"][0], report["again"][0]
    assert isinstance(first, dict) and isinstance(second, dict), f"the loaded program failed on a batch: {first}"
    assert torch.equal(first["value"], second["value"]), (
        "two runs of the loaded program on the same batch differ (the model was given in train mode)")
    assert_close(first["value"], _expected(model, x)[0],
                 what="the loaded program's output (model given in train mode; expected: its eval-mode output)")


def _export_each(mod, specs, example):
    """Runs in the worker: one export per model, each to its own file."""
    return [_export(mod, spec, example, f"model{i}.pt2", []) for i, spec in enumerate(specs)]


@check("mode", weight=2)
def test_mode_restored(sub):
    specs = [_spec(_tower(mode)) for mode in MODES]
    for seen, mode in zip(sub.probe(_export_each, sub, specs, torch.randn(4, FEATURES)), MODES):
        _is_program(seen)
        changed = [f"{name or '<model>'}: {before} -> {after}"
                   for (name, before), (_, after) in zip(seen["flags_before"], seen["flags_after"]) if before != after]
        assert not changed, (f"the model was given in mode '{mode}'; after export these training flags changed: "
                             f"{changed}")


# ---------------------------------------------------------------- state

@check("state")
def test_original_untouched(sub):
    model = _tower("train")
    seen = sub.probe(_export, sub, _spec(model), torch.randn(4, FEATURES) * 3 + 2, "model.pt2", [])
    _is_program(seen)
    assert seen["state"], ("exporting the model changed its parameters or buffers (BatchNorm running statistics "
                           "move whenever the model runs in training mode)")


# ---------------------------------------------------------------- api

@check("api", weight=2)
def test_program_archive(sub):
    model = _tower("eval")
    torch.manual_seed(6)
    x = torch.randn(5, FEATURES)
    seen, report = _run(sub, model, torch.randn(4, FEATURES), [x])
    _is_program(seen)
    expected = _expected(model, x)[0]
    assert isinstance(seen["outs"][0], torch.Tensor), f"the returned program's module failed on a batch of 5: {seen['outs'][0]}"
    assert_close(seen["outs"][0], expected, what="the returned program's module output")
    _loaded(report)
    assert report["type"] == PROGRAM, f"torch.export.load gave a {report['type']}"
    _outputs(report, [expected], ["a batch of 5"])


# ---------------------------------------------------------------- shape, dtype

def _batch_sizes(report, sizes, example):
    _loaded(report)
    for got, n in zip(report["outs"], sizes):
        assert isinstance(got, dict), f"the loaded program (exported with a batch of {example}) fails on a batch of {n}: {got}"
        assert tuple(got["value"].shape) == (n, CLASSES), f"a batch of {n} gave shape {tuple(got['value'].shape)}"


@check("shape", weight=2)
def test_dynamic_batch(sub):
    model = _tower("train")
    torch.manual_seed(7)
    sizes = (1, 4, 13, 64)
    inputs = [torch.randn(n, FEATURES) for n in sizes]
    _, report = _run(sub, model, torch.randn(4, FEATURES), inputs)
    _batch_sizes(report, sizes, 4)
    _outputs(report, _expected(model, *inputs), [f"a batch of {n}" for n in sizes])


@check("shape")
def test_single_row_example(sub):
    model = _tower("eval")
    torch.manual_seed(8)
    sizes = (1, 6)
    inputs = [torch.randn(n, FEATURES) for n in sizes]
    _, report = _run(sub, model, torch.randn(1, FEATURES), inputs)
    _batch_sizes(report, sizes, 1)
    _outputs(report, _expected(model, *inputs), [f"a batch of {n}" for n in sizes])


@check("dtype")
def test_output_dtype(sub):
    model = _tower("eval")
    x = torch.randn(5, FEATURES)
    seen, report = _run(sub, model, torch.randn(4, FEATURES), [x])
    _loaded(report)
    got = report["outs"][0]
    assert isinstance(got, dict), f"the loaded program failed on a float32 batch: {got}"
    assert got["value"].dtype == torch.float32, f"the loaded program's output is {got['value'].dtype}, expected float32"
    returned = (seen["outs"] or [None])[0]
    assert isinstance(returned, torch.Tensor) and returned.dtype == torch.float32, (
        f"the returned program's output should be a float32 tensor, got {returned!r}")
    _outputs(report, _expected(model, x), ["a batch of 5"])


# ---------------------------------------------------------------- device

@check("device")
def test_model_not_moved(sub):
    # CPU fallback of the CUDA check: the artifact keeps the model's device, nothing moves the model.
    model = _tower("train")
    x = torch.randn(3, FEATURES)
    seen, report = _run(sub, model, torch.randn(4, FEATURES), [x], watch_moves=True)
    _is_program(seen)
    assert not seen["moved"], f"the model was moved ({seen['moved']} called on it): export it where it is"
    _outputs(report, _expected(model, x), ["a CPU batch"])
    assert report["outs"][0]["device"] == "cpu"


def _export_cuda(mod, spec, path):
    import torch

    model = _build(spec).cuda()
    mod.export_for_serving(model, torch.randn(4, 6, device="cuda"), path)
    return (sorted({p.device.type for p in torch.nn.Module.parameters(model)}),
            [m.training for m in torch.nn.Module.modules(model)])


@requires_cuda
@check("device")
def test_cuda_export(sub):
    model = _tower("train")
    devices, flags = sub.probe(_export_cuda, sub, _spec(model), "cuda.pt2")
    assert devices == ["cuda"] and flags == [m.training for m in model.modules()], (
        "the CUDA model should stay on CUDA, in its mode")
    x = torch.randn(6, FEATURES)
    report = sub.verify(_artifact, sub.read_file("cuda.pt2"), [x], "cuda")
    _loaded(report)
    got = report["outs"][0]
    assert isinstance(got, dict) and got["device"] == "cuda", f"the loaded program should run on CUDA inputs, got {got}"
    assert_close(got["value"], _expected(model, x)[0], atol=1e-4, rtol=1e-3, what="the CUDA program's output")
