"""Hidden checks for 73_dynamic_quantization.

The copy is served on the CPU. The structure of the returned model is read from torch's registries
(`probes.modules`, `_parameters`, `probes.qualified_name`); a quantized weight is a torchao tensor
subclass whose flattened inner tensors hold the int8 values; the int8 matrix product is seen at
torch's dispatcher (a TorchDispatchMode recording the aten operators one forward reaches:
`aten._int_mm` is the int8 x int8 -> int32 product). Sizes are measured with torch's own
`nn.Module.state_dict` (a class cannot redefine what is counted), the fp32 reference outputs and
expected sizes are computed in the judge, which never imports torchao. The CUDA check repeats the
device check with a CUDA original; its CPU fallback watches that nothing moves the original.
"""
import copy
import io

import pytest
import torch
from torch import nn

from grader.testing import check, requires_cuda

LINEARS = ["0.0", "1", "5"]  # where _net puts its nn.Linear layers, at two depths


def _net(width=32, out=5, seed=0, train=True):
    """A nested model: Linears at two depths, with LayerNorm, ReLU and Dropout between them."""
    torch.manual_seed(seed)
    net = nn.Sequential(
        nn.Sequential(nn.Linear(width, width), nn.ReLU()),
        nn.Linear(width, width), nn.LayerNorm(width), nn.ReLU(),
        nn.Dropout(0.3), nn.Linear(width, out))
    return net.train(train)


def _int8_weight(weight):
    """Runs in the worker: how a registered Linear weight is stored. 'int8' for a torchao tensor
    subclass that flattens to an int8 tensor of the weight's shape, else what it is."""
    from grader import probes

    name = probes.qualified_name(weight)
    if not isinstance(weight, torch.Tensor) or type(weight) in (torch.Tensor, torch.nn.Parameter):
        return f"{name} ({weight.dtype})" if isinstance(weight, torch.Tensor) else name
    if not name.startswith("torchao."):
        return name
    inner, _ = type(weight).__tensor_flatten__(weight)
    held = [getattr(weight, key) for key in inner]
    if any(t.dtype == torch.int8 and tuple(t.shape) == tuple(weight.shape) for t in held):
        return "int8"
    return f"{name} holding {[str(t.dtype) for t in held]}"


def _layers(mod, make):
    from grader import probes

    model = make()
    model.add_module("6", nn.GRU(8, 8))  # not a Linear: it keeps its class and its float weights
    original = {name: m for name, m in probes.modules(model)}
    classes = [(name, probes.qualified_name(m)) for name, m in probes.modules(model)]
    q = mod.quantize_linear_layers(model)
    if not isinstance(q, nn.Module):
        return {"type": probes.qualified_name(q)}
    found = [(name, probes.qualified_name(m)) for name, m in probes.modules(q)]
    weights = {name: _int8_weight(object.__getattribute__(m, "_parameters").get("weight"))
               for name, m in probes.modules(q) if type(m) is nn.Linear}
    copies = dict(probes.modules(q))

    def same_values(name):
        kept = copies.get(name)
        return (kept is not None and kept is not original[name]
                and all(type(a) is type(b) and torch.equal(a, b) for a, b in
                        zip(probes.state_dict(kept).values(), probes.state_dict(original[name]).values())))

    return {"type": "module", "layers": found, "expected": classes, "weights": weights,
            "same_norm": same_values("2"), "same_gru": same_values("6")}


@check("api", weight=2)
def test_linears_quantized(sub):
    seen = sub.probe(_layers, sub, _net)
    assert seen["type"] == "module", f"quantize_linear_layers should return an nn.Module, got {seen['type']}"
    assert seen["layers"] == seen["expected"], (
        "the copy should keep the original's module tree, every module under its name and class (the Linears "
        f"stay nn.Linear); the original has {seen['expected']}, the copy {seen['layers']}")
    assert seen["weights"] == {name: "int8" for name in LINEARS}, (
        f"every nn.Linear's weight should be held as int8 values (a torchao quantized tensor); got {seen['weights']}")
    assert seen["same_norm"], "the LayerNorm of the copy should keep the original's weights (a copy, not the same object)"
    assert seen["same_gru"], "the GRU of the copy should keep the original's float weights (a copy, not the same object)"


def _matmuls(mod, make):
    """Runs in the worker: the aten operators one forward of the copy reaches (no grad)."""
    from torch.utils._python_dispatch import TorchDispatchMode

    from grader import probes

    class Record(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.names = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.names.append(str(func.overloadpacket.__name__))
            return func(*args, **(kwargs or {}))

    q = mod.quantize_linear_layers(make())
    if not isinstance(q, nn.Module):
        return {"type": probes.qualified_name(q)}
    x = torch.randn(16, 32)
    with torch.no_grad(), Record() as seen:
        out = q(x)
    return {"type": "module", "out": isinstance(out, torch.Tensor) and tuple(out.shape) == (16, 5),
            "int_mm": seen.names.count("_int_mm"),
            "float_mm": sorted({op for op in seen.names if op in ("mm", "addmm", "linear", "matmul", "bmm")})}


@check("api")
def test_int8_matmul(sub):
    seen = sub.probe(_matmuls, sub, _net)
    assert seen["type"] == "module", f"quantize_linear_layers should return an nn.Module, got {seen['type']}"
    assert seen["out"], "the copy should map a (16, 32) batch to (16, 5)"
    assert seen["int_mm"] >= len(LINEARS), (
        f"one forward through {len(LINEARS)} Linears ran {seen['int_mm']} int8 x int8 matrix products (aten._int_mm) "
        f"and these float ones: {seen['float_mm']}: every Linear should quantize its input on the fly and multiply "
        "in int8 (dynamic quantization), not dequantize its weight to float")


def _quantized(q):
    """Runs in the worker: how many nn.Linear of `q` hold an int8 weight."""
    from grader import probes

    return sum(type(m) is nn.Linear and _int8_weight(object.__getattribute__(m, "_parameters").get("weight")) == "int8"
               for _, m in probes.modules(q))


def _untouched(mod, make):
    from grader import probes

    model = make()
    before = {k: v.clone() for k, v in probes.state_dict(model).items()}
    classes = [(n, probes.qualified_name(m)) for n, m in probes.modules(model)]
    flags = [m.training for _, m in probes.modules(model)]
    q = mod.quantize_linear_layers(model)
    after = probes.state_dict(model)
    return {"copy": q is not model and _quantized(q) > 0,
            "classes": classes == [(n, probes.qualified_name(m)) for n, m in probes.modules(model)],
            "weights": sorted(before) == sorted(after) and all(torch.equal(before[k], after[k]) for k in before),
            "training": flags == [m.training for _, m in probes.modules(model)],
            "devices": sorted({t.device.type for t in after.values()})}


@check("state", weight=2)
def test_original_untouched(sub):
    for train in (True, False):
        seen = sub.probe(_untouched, sub, lambda t=train: _net(train=t))
        mode = "train" if train else "eval"
        assert seen["copy"], "quantize_linear_layers should return a quantized copy (an nn.Module whose Linears hold int8 weights), not the original"
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
    qlinears = _quantized(q)
    classes = sorted({probes.qualified_name(m) for _, m in probes.modules(q)})
    return {"fp32": fp32, "q": size(q), "qlinears": qlinears, "classes": classes}


@check("perf", weight=2)
def test_size_ratio(sub):
    seen = sub.probe(_sizes, sub)
    assert seen["q"] is not None and seen["qlinears"] == 4, (
        f"the quantized 4-layer MLP should hold 4 Linears with int8 weights, found {seen['qlinears']}")
    # torch's classes only, whose state_dict says what they hold (a class of the candidate's could leave weights
    # out), and torchao's weights (_quantized)
    assert seen["classes"] == sorted(["torch.nn.modules.linear.Linear", "torch.nn.modules.activation.ReLU",
                                      "torch.nn.modules.container.Sequential"]), (
        f"the quantized MLP should keep the original's classes (Sequential, ReLU, Linear), got {seen['classes']}")
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
    return {"root": object.__getattribute__(q, "training"),
            "others": [n for n, m in probes.modules(q) if object.__getattribute__(m, "training")],
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
    devices = {t.device.type for _, m in probes.modules(q) for registry in ("_parameters", "_buffers")
               for t in object.__getattribute__(m, registry).values() if t is not None}
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
