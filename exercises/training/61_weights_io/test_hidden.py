"""Hidden checks for 61_weights_io.

The model is a Linear-BatchNorm-ReLU-Dropout-Linear stack trained for a few train-mode forwards
(so the BatchNorm running statistics and `num_batches_tracked` are not their initial values). The
file the candidate's `save_weights` writes is read back with `sub.read_file` and opened only in the
verifier (a worker that never imports the submission), with `torch.load(weights_only=True)`. The
files `load_weights` reads are written by the judge (`torch.save` of a known state dict) and put in
the worker's scratch with `sub.write_file`; the loaded model is inspected inside a probe through
torch's registries, never through methods the model's class could override.
"""
import io

import pytest
import torch
from torch import nn

from grader.testing import check, requires_cuda


def _factory():
    return nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Dropout(0.5), nn.Linear(8, 3))


def _extra_layer():
    return nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Dropout(0.5), nn.Linear(8, 3),
                         nn.Linear(3, 3))


def _missing_layer():
    return nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Dropout(0.5))


def _no_batchnorm():
    return nn.Sequential(nn.Linear(4, 8), nn.Identity(), nn.ReLU(), nn.Dropout(0.5), nn.Linear(8, 3))


def _trained():
    torch.manual_seed(1)
    model = _factory()
    for _ in range(3):
        model(torch.randn(16, 4) * 2 + 1)           # moves running stats, num_batches_tracked = 3
    return model


def _bytes(obj):
    buf = io.BytesIO()
    torch.save(obj, buf)
    return buf.getvalue()


class _ArbitraryCall:
    """Pickles as a call of torch.full: only an unrestricted unpickler runs it."""

    def __reduce__(self):
        return (torch.full, ((8,), 7.0))


def _inspect_saved(raw):
    """Runs in the verifier: open the candidate's file as weights only, report what is in it."""
    import io
    import zipfile

    import torch

    report = {"zip": zipfile.is_zipfile(io.BytesIO(raw)), "error": None, "type": None,
              "is_dict": False, "tensors": {}, "other": [], "saved_on": []}

    def where(storage, location):                       # the device each storage was saved from
        report["saved_on"].append(str(location).split(":")[0])
        return storage

    try:
        obj = torch.load(io.BytesIO(raw), weights_only=True, map_location=where)
    except Exception as exc:                            # noqa: BLE001 - reported, the check fails on it
        report["error"] = f"{type(exc).__name__}: {str(exc)[:300]}"
        return report
    report["type"] = type(obj).__name__
    report["is_dict"] = isinstance(obj, dict)
    if report["is_dict"]:
        for key, value in obj.items():
            if type(key) is str and isinstance(value, torch.Tensor):
                report["tensors"][key] = value.device.type
            else:
                report["other"].append(repr(key)[:80])
    return report


def _inspect_values(raw):
    """Runs in the verifier: the tensors of the candidate's file, loaded weights only on the CPU."""
    import io

    import torch

    obj = torch.load(io.BytesIO(raw), weights_only=True, map_location="cpu")
    return {k: v.detach().clone() for k, v in obj.items() if type(k) is str and isinstance(v, torch.Tensor)}


def _load(mod, factory, path, device, x):
    """Runs in the worker: load through the candidate, observe through torch's registries."""
    import torch

    from grader import probes

    model = mod.load_weights(factory, path, device) if device is not None else mod.load_weights(factory, path)
    seen = {"type": probes.qualified_name(model), "expected_type": probes.qualified_name(factory())}
    if not isinstance(model, torch.nn.Module):
        return seen
    seen["training"] = {name: m.__dict__.get("training") for name, m in probes.modules(model)}
    state = probes.state_dict(model)
    seen["devices"] = sorted({t.device.type for t in state.values()})
    seen["keys"] = sorted(state)
    if x is not None:
        with torch.no_grad():
            seen["out"] = [torch.nn.Module.__call__(model, x).detach().clone() for _ in range(2)]
        seen["state"] = {k: v.detach().clone() for k, v in state.items()}
    return seen


def _raises(mod, good_factory, factory, path):
    """Runs in the worker: what load_weights raises for `path` (None when it returns), after checking
    that it loads the good file "good.pt" into `good_factory`'s model (a loader that always raises
    earns nothing here)."""
    from grader import probes

    try:
        model = mod.load_weights(good_factory, "good.pt")
    except NotImplementedError:
        raise
    except Exception as exc:                            # noqa: BLE001 - reported, the check fails on it
        return f"the matching file did not load: {type(exc).__name__}"
    if probes.qualified_name(model) != probes.qualified_name(good_factory()):
        return f"the matching file loaded as a {probes.qualified_name(model)}"
    try:
        mod.load_weights(factory, path)
    except NotImplementedError:
        raise
    except Exception as exc:                            # noqa: BLE001 - the type is the observation
        return [c.__name__ for c in type(exc).__mro__]
    return None


# ---------------------------------------------------------------- count_parameters

def _frozen():
    model = _factory()
    for p in model[0].parameters():
        p.requires_grad_(False)
    return model


def _tied():
    first, second = nn.Linear(5, 5), nn.Linear(5, 5)
    second.weight = first.weight                       # weight tying: one Parameter, two modules
    return nn.Sequential(first, nn.ReLU(), second, nn.BatchNorm1d(5))


COUNT_CASES = {
    "batchnorm_all": (_factory, False),
    "frozen_all": (_frozen, False),
    "frozen_trainable_only": (_frozen, True),
    "tied_weights": (_tied, False),
    "tied_trainable_only": (_tied, True),
}


@check("value", weight=2)
@pytest.mark.parametrize("case", list(COUNT_CASES), ids=list(COUNT_CASES))
def test_count_parameters(sub, case):
    build, trainable_only = COUNT_CASES[case]
    model = build()
    expected = sum(p.numel() for p in model.parameters() if p.requires_grad or not trainable_only)
    # trainable_only=False is left to the default, which the contract says is False
    got = sub.count_parameters(model, trainable_only=True) if trainable_only else sub.count_parameters(model)
    assert type(got) is int, f"count_parameters returned {type(got).__name__}, expected a Python int"
    assert got == expected, (f"count_parameters(trainable_only={trainable_only}) returned {got}, expected {expected} "
                             "(parameters only: no buffers such as BatchNorm running statistics; a shared "
                             "parameter counts once; frozen ones only without trainable_only)")


# ---------------------------------------------------------------- save_weights

@check("state", weight=2)
def test_saved_state_dict_keys(sub):
    model = _trained()
    sub.save_weights(model, "weights.pt")
    seen = sub.verify(_inspect_saved, sub.read_file("weights.pt"))
    assert seen["error"] is None, f"the saved file does not load with torch.load(weights_only=True): {seen['error']}"
    assert seen["is_dict"], f"the saved object is a {seen['type']}, expected the state dict (a dict of str -> Tensor)"
    assert not seen["other"], f"entries that are not str -> Tensor: {seen['other'][:5]}"
    expected = list(model.state_dict())
    assert sorted(seen["tensors"]) == sorted(expected), \
        (f"saved keys {sorted(seen['tensors'])}, expected the state_dict's {sorted(expected)} "
         "(parameters and buffers)")
    values = sub.verify(_inspect_values, sub.read_file("weights.pt"))
    for key, tensor in model.state_dict().items():
        assert torch.equal(values[key], tensor), f"the saved {key!r} differs from the model's"


@check("state")
def test_file_format(sub):
    sub.save_weights(_trained(), "weights.pt")
    seen = sub.verify(_inspect_saved, sub.read_file("weights.pt"))
    assert seen["zip"], "the file is not a zip archive: save with torch.save's default format"
    assert seen["error"] is None, \
        f"a process that never imported your code could not load the file with weights_only=True: {seen['error']}"
    assert seen["is_dict"] and seen["tensors"] and set(seen["saved_on"]) == {"cpu"}, \
        f"the file holds {seen['type']} with tensors saved from {sorted(set(seen['saved_on']))}, expected CPU tensors"


# ---------------------------------------------------------------- load_weights

@check("mode")
def test_eval_mode(sub):
    sub.write_file("ref.pt", _bytes(_trained().state_dict()))
    seen = sub.probe(_load, sub, _factory, "ref.pt", None, torch.randn(6, 4))
    assert seen["type"] == seen["expected_type"], \
        f"load_weights returned a {seen['type']}, expected the model built by model_factory ({seen['expected_type']})"
    training = [name or "<model>" for name, flag in seen["training"].items() if flag is not False]
    assert not training, f"modules still in training mode after load_weights: {training}"
    assert torch.equal(seen["out"][0], seen["out"][1]), "two forwards of the loaded model differ (Dropout active?)"


@check("state", weight=2)
@pytest.mark.parametrize("factory", [_extra_layer, _missing_layer, _no_batchnorm],
                         ids=["extra_layer", "missing_layer", "missing_buffers"])
def test_strict_mismatch(sub, factory):
    sub.write_file("ref.pt", _bytes(_trained().state_dict()))
    sub.write_file("good.pt", _bytes(_trained().state_dict()))
    raised = sub.probe(_raises, sub, _factory, factory, "ref.pt")
    assert not isinstance(raised, str), raised
    assert raised is not None and "RuntimeError" in raised, \
        (f"loading into an architecture with different keys {'raised ' + raised[0] if raised else 'did not raise'}; "
         "expected the RuntimeError of a strict load_state_dict")


@check("state")
def test_refuses_arbitrary_code(sub):
    state = _trained().state_dict()
    state["1.running_mean"] = _ArbitraryCall()      # unpickles as torch.full((8,), 7.0)
    sub.write_file("ref.pt", _bytes(state))
    sub.write_file("good.pt", _bytes(_trained().state_dict()))
    raised = sub.probe(_raises, sub, _factory, _factory, "ref.pt")
    assert not isinstance(raised, str), raised
    assert raised is not None, \
        "load_weights loaded a file whose unpickling calls a function: load it with torch.load(weights_only=True)"


@check("value", weight=2)
@pytest.mark.parametrize("where", [None, "cpu", torch.device("cpu")], ids=["default", "str", "torch_device"])
def test_outputs_match(sub, where):
    model = _trained()
    sub.write_file("ref.pt", _bytes(model.state_dict()))
    x = torch.randn(6, 4)
    seen = sub.probe(_load, sub, _factory, "ref.pt", where, x)
    assert seen["type"] == seen["expected_type"], f"load_weights returned a {seen['type']}, expected {seen['expected_type']}"
    model.eval()
    with torch.no_grad():
        expected = model(x)
    assert torch.equal(seen["out"][0], expected), "the loaded model's eval-mode output differs from the original's"
    for key, tensor in model.state_dict().items():
        assert torch.equal(seen["state"][key], tensor), f"the loaded {key!r} differs from the file's"


@check("value")
def test_own_round_trip(sub):
    model = _trained()
    sub.save_weights(model, "weights.pt")
    x = torch.randn(6, 4)
    seen = sub.probe(_load, sub, _factory, "weights.pt", "cpu", x)
    model.eval()
    with torch.no_grad():
        expected = model(x)
    assert seen["type"] == seen["expected_type"], f"load_weights returned a {seen['type']}, expected {seen['expected_type']}"
    assert torch.equal(seen["out"][0], expected), "save_weights then load_weights does not give back the same outputs"


# ---------------------------------------------------------------- devices

@check("device")
def test_device_meta(sub):
    sub.write_file("ref.pt", _bytes(_trained().state_dict()))
    seen = sub.probe(_load, sub, _factory, "ref.pt", "meta", None)
    assert seen["type"] == seen["expected_type"], f"load_weights returned a {seen['type']}, expected {seen['expected_type']}"
    assert seen["devices"] == ["meta"], f"with device='meta' the parameters and buffers are on {seen['devices']}"


def _cuda_round_trip(mod, x):
    """Runs in the worker: save a CUDA model through the candidate and load it back onto CUDA."""
    import torch

    from grader import probes

    torch.manual_seed(1)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.BatchNorm1d(8), torch.nn.ReLU(),
                                torch.nn.Dropout(0.5), torch.nn.Linear(8, 3)).cuda()
    model(x.cuda())
    mod.save_weights(model, "cuda.pt")
    return {k: v.detach().cpu() for k, v in probes.state_dict(model).items()}


@requires_cuda
@check("device")
def test_cuda(sub):
    x = torch.randn(6, 4)
    state = sub.probe(_cuda_round_trip, sub, x)
    seen = sub.verify(_inspect_saved, sub.read_file("cuda.pt"))
    assert seen["error"] is None and seen["tensors"], f"the file of a CUDA model does not load: {seen['error']}"
    assert set(seen["saved_on"]) == {"cpu"}, \
        f"save_weights of a CUDA model wrote tensors saved from {sorted(set(seen['saved_on']))}, expected only CPU"
    loaded = sub.probe(_load, sub, _factory, "cuda.pt", "cuda", x.cuda())
    assert loaded["devices"] == ["cuda"], f"with device='cuda' the parameters and buffers are on {loaded['devices']}"
    for key, tensor in state.items():
        assert torch.equal(loaded["state"][key].cpu(), tensor), f"{key!r} changed through the CUDA round trip"
