"""Hidden checks for 73_dynamic_quantization.

Everything runs on the CPU: dynamic quantization is a CPU feature. The structure of the returned
model is read from torch's registries (`probes.modules`, `probes.qualified_name`), sizes are
measured with torch's own `nn.Module.state_dict` (a class cannot redefine what is counted), the
fp32 reference outputs and expected sizes are computed in the judge. The CUDA check repeats the
device check with a CUDA original; its CPU fallback watches that nothing moves the original.
"""
import copy
import io

import pytest
import torch
from torch import nn

from grader.testing import check, requires_cuda

QLINEAR = "torch.ao.nn.quantized.dynamic.modules.linear.Linear"


def _net(width=32, out=5, seed=0, train=True):
    """A nested model: Linears at two depths, with LayerNorm, ReLU and Dropout between them."""
    torch.manual_seed(seed)
    net = nn.Sequential(
        nn.Sequential(nn.Linear(width, width), nn.ReLU()),
        nn.Linear(width, width), nn.LayerNorm(width), nn.ReLU(),
        nn.Dropout(0.3), nn.Linear(width, out))
    return net.train(train)


EXPECTED_LAYERS = [("", "torch.nn.modules.container.Sequential"),
                   ("0", "torch.nn.modules.container.Sequential"), ("0.0", QLINEAR),
                   ("0.1", "torch.nn.modules.activation.ReLU"), ("1", QLINEAR),
                   ("2", "torch.nn.modules.normalization.LayerNorm"), ("3", "torch.nn.modules.activation.ReLU"),
                   ("4", "torch.nn.modules.dropout.Dropout"), ("5", QLINEAR), ("6", "torch.nn.modules.rnn.GRU")]


def _layers(mod, make):
    from grader import probes

    model = make()
    model.add_module("6", nn.GRU(8, 8))  # not a Linear: quantize_dynamic's default set would take it too
    original = {name: m for name, m in probes.modules(model)}
    q = mod.quantize_linear_layers(model)
    if not isinstance(q, nn.Module):
        return {"type": probes.qualified_name(q)}
    found = [(name, probes.qualified_name(m)) for name, m in probes.modules(q) if not name.endswith("_packed_params")]
    qlinear = torch.ao.nn.quantized.dynamic.Linear
    weights = {name: str(qlinear.weight(m).dtype) for name, m in probes.modules(q) if type(m) is qlinear}
    norm = dict(probes.modules(q)).get("2")
    same_norm = (isinstance(norm, nn.LayerNorm) and norm is not original["2"]
                 and all(torch.equal(a, b) for a, b in zip(probes.state_dict(norm).values(),
                                                           probes.state_dict(original["2"]).values())))
    return {"type": "module", "layers": found, "weights": weights, "same_norm": same_norm}


@check("api", weight=2)
def test_linears_replaced(sub):
    seen = sub.probe(_layers, sub, _net)
    assert seen["type"] == "module", f"quantize_linear_layers should return an nn.Module, got {seen['type']}"
    assert sorted(seen["layers"]) == sorted(EXPECTED_LAYERS), (
        "every nn.Linear (nested ones too) should become torch.ao.nn.quantized.dynamic.Linear and every "
        f"other module keep its class; got {seen['layers']}")
    assert seen["weights"] == {"0.0": "torch.qint8", "1": "torch.qint8", "5": "torch.qint8"}, (
        f"the quantized Linears should hold qint8 weights, got {seen['weights']}")
    assert seen["same_norm"], "the LayerNorm of the copy should keep the original's weights (a copy, not the same object)"


def _untouched(mod, make):
    from grader import probes

    model = make()
    before = {k: v.clone() for k, v in probes.state_dict(model).items()}
    classes = [(n, probes.qualified_name(m)) for n, m in probes.modules(model)]
    flags = [m.training for _, m in probes.modules(model)]
    q = mod.quantize_linear_layers(model)
    after = probes.state_dict(model)
    quantized = isinstance(q, nn.Module) and any(type(m) is torch.ao.nn.quantized.dynamic.Linear
                                                 for _, m in probes.modules(q))
    return {"copy": q is not model and quantized,
            "classes": classes == [(n, probes.qualified_name(m)) for n, m in probes.modules(model)],
            "weights": sorted(before) == sorted(after) and all(torch.equal(before[k], after[k]) for k in before),
            "training": flags == [m.training for _, m in probes.modules(model)],
            "devices": sorted({t.device.type for t in after.values()})}


@check("state", weight=2)
def test_original_untouched(sub):
    for train in (True, False):
        seen = sub.probe(_untouched, sub, lambda t=train: _net(train=t))
        mode = "train" if train else "eval"
        assert seen["copy"], "quantize_linear_layers should return a quantized copy (an nn.Module with dynamic quantized Linears), not the original"
        assert seen["classes"], f"the original ({mode} mode) lost its nn.Linear layers: quantize a copy, not the model in place"
        assert seen["weights"], f"the original ({mode} mode) model's weights changed"
        assert seen["training"], f"the original model's training flags changed (it was in {mode} mode)"
        assert seen["devices"] == ["cpu"], f"the original model moved to {seen['devices']}"


def _sizes(mod):
    from grader import probes

    torch.manual_seed(1)
    layers = []
    for i in range(4):
        layers += [nn.Linear(1024, 1024)] + ([nn.ReLU()] if i < 3 else [])
    model = nn.Sequential(*layers).eval()

    def size(m):
        buffer = io.BytesIO()
        torch.save(nn.Module.state_dict(m), buffer)
        return len(buffer.getvalue())

    fp32 = size(model)
    q = mod.quantize_linear_layers(model)
    if not isinstance(q, nn.Module):
        return {"fp32": fp32, "q": None, "qlinears": 0}
    qlinears = sum(type(m) is torch.ao.nn.quantized.dynamic.Linear for _, m in probes.modules(q))
    classes = sorted({probes.qualified_name(m) for _, m in probes.modules(q)})
    return {"fp32": fp32, "q": size(q), "qlinears": qlinears, "classes": classes}


@check("perf", weight=2)
def test_size_ratio(sub):
    seen = sub.probe(_sizes, sub)
    assert seen["q"] is not None and seen["qlinears"] == 4, (
        f"the quantized 4-layer MLP should hold 4 dynamic quantized Linears, found {seen['qlinears']}")
    # torch's classes only, whose state_dict says what they hold (a class of the candidate's could leave weights out)
    assert seen["classes"] == sorted([QLINEAR, "torch.ao.nn.quantized.modules.linear.LinearPackedParams",
                                      "torch.nn.modules.activation.ReLU", "torch.nn.modules.container.Sequential"]), (
        f"the quantized MLP should be made of torch's Sequential, ReLU and dynamic quantized Linear, got {seen['classes']}")
    ratio = seen["q"] / seen["fp32"]
    assert ratio <= 0.35, (
        f"serialized state_dict of the quantized 4x1024 MLP is {ratio:.1%} of the fp32 one; "
        "int8 weights should bring it to about 25 % (at most 35 %)")


@check("value", weight=2)
def test_outputs_close(sub):
    model = _net(width=256, out=16, seed=2, train=True)
    torch.manual_seed(3)
    x = torch.randn(32, 256)
    with torch.no_grad():
        expected = copy.deepcopy(model).eval()(x)
    q = sub.quantize_linear_layers(model)
    with torch.no_grad():
        got = q(x)
    assert isinstance(got, torch.Tensor) and got.shape == expected.shape and got.dtype == torch.float32, (
        f"the quantized model should map a (32, 256) float32 batch to (32, 16) float32, got {got!r}")
    error = (got - expected).abs().max().item()
    bound = 5e-2 * expected.abs().max().item()
    assert error <= bound, (
        f"max |quantized - fp32 eval| = {error:.4g} > {bound:.4g} (5 % of max |fp32|): is the copy in eval mode, "
        "with the original weights?")
    cosine = torch.nn.functional.cosine_similarity(got.flatten(), expected.flatten(), dim=0).item()
    assert cosine >= 0.999, f"cosine similarity with the fp32 eval output is {cosine:.5f} < 0.999"


def _mode(mod, make):
    from grader import probes

    q = mod.quantize_linear_layers(make())
    if not isinstance(q, nn.Module):
        return None
    x = torch.randn(64, 32)
    with torch.no_grad():
        first, second = q(x), q(x)
    qlinear = torch.ao.nn.quantized.dynamic.Linear
    return {"root": object.__getattribute__(q, "training"),
            "others": [n for n, m in probes.modules(q)
                       if type(m) is not qlinear and not n.endswith("_packed_params") and m.training],
            "deterministic": torch.equal(first, second)}


@check("mode")
def test_eval_mode(sub):
    seen = sub.probe(_mode, sub, _net)
    assert seen is not None, "quantize_linear_layers should return an nn.Module"
    assert seen["root"] is False, "the returned model should be in eval mode (training=False)"
    assert not seen["others"], f"these submodules of the returned model are still in training mode: {seen['others']}"
    assert seen["deterministic"], "two forwards of the returned model on the same batch differ: Dropout is still active"


def _no_files(mod, model):
    import os
    import tempfile

    from grader import probes

    def listing():
        return sorted(os.listdir(".")), sorted(os.listdir(tempfile.gettempdir()))

    before = listing()
    with probes.spy("torch.save", "torch.serialization.save", module=mod) as seen:
        size = mod.serialized_size_bytes(model)
    targets = []
    for _, args, kwargs in seen.calls:
        f = args[1] if len(args) > 1 else kwargs.get("f")
        on_disk = isinstance(f, (str, bytes, os.PathLike))
        if not on_disk:
            try:
                f.fileno()
                on_disk = True
            except Exception:
                pass
        targets.append((probes.qualified_name(f), on_disk))
    return {"size": size if type(size) is int else repr(size), "unchanged": before == listing(), "targets": targets}


@check("api")
def test_size_without_files(sub, tmp_path):
    judge_before = sorted(p.name for p in tmp_path.iterdir())
    seen = sub.probe(_no_files, sub, _net())
    assert seen["unchanged"], "serialized_size_bytes left files behind in the working or temporary directory"
    assert seen["targets"] and not any(on_disk for _, on_disk in seen["targets"]), (
        f"serialized_size_bytes should torch.save into an in-memory buffer (io.BytesIO), not a file: {seen['targets']}")
    assert sorted(p.name for p in tmp_path.iterdir()) == judge_before
    assert isinstance(seen["size"], int), f"serialized_size_bytes should return an int, got {seen['size']}"


def _size(model):
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    return len(buffer.getvalue())


@pytest.mark.parametrize("width", [8, 200])
@check("value")
def test_serialized_size_value(sub, width):
    model = _net(width=width, seed=width)
    got = sub.serialized_size_bytes(model)
    assert type(got) is int, f"serialized_size_bytes should return an int, got {got!r}"
    assert got == _size(model), (
        f"serialized_size_bytes gave {got} bytes; torch.save(model.state_dict()) into a buffer writes {_size(model)} "
        "(the serialized size, not a count of parameters)")


def _placement(mod, make, device):
    from grader import probes

    model = make().to(device)
    originals = {id(m) for _, m in probes.modules(model)}
    with probes.spy("torch.nn.Module.to", "torch.nn.Module.cpu", "torch.nn.Module.cuda",
                    "torch.nn.Module._apply", module=mod) as seen:
        q = mod.quantize_linear_layers(model)
    moved = sorted({name for name, args, _ in seen.calls if args and id(args[0]) in originals})
    if not isinstance(q, nn.Module) or q is model:
        return {"moved": moved, "copy": False}
    qlinear = torch.ao.nn.quantized.dynamic.Linear
    devices = {t.device.type for t in probes.state_dict(q).values()}
    devices |= {qlinear.weight(m).device.type for _, m in probes.modules(q) if type(m) is qlinear}
    with torch.no_grad():
        out = q(torch.randn(4, 32))
    return {"moved": moved, "copy": True, "devices": sorted(devices), "out": out.device.type,
            "original": sorted({t.device.type for t in probes.state_dict(model).values()})}


def _check_placement(seen, device):
    assert seen["copy"], "quantize_linear_layers should return a new nn.Module, not the original"
    assert not seen["moved"], f"the original model was moved ({seen['moved']} called on it): move the copy only"
    assert seen["devices"] == ["cpu"] and seen["out"] == "cpu", (
        f"the quantized copy should live on the CPU; its tensors are on {seen['devices']}")
    assert seen["original"] == [device], f"the original should stay on {device}, it is on {seen['original']}"


@check("device")
def test_original_not_moved(sub):
    # CPU fallback of the CUDA check: nothing is called to move the original, the copy is on the CPU.
    _check_placement(sub.probe(_placement, sub, _net, "cpu"), "cpu")


@requires_cuda
@check("device")
def test_cuda_original(sub):
    _check_placement(sub.probe(_placement, sub, _net, "cuda"), "cuda")
