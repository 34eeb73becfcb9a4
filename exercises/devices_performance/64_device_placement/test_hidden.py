"""Hidden checks for 64_device_placement.

No GPU is needed for most of them: placement runs on the `meta` device, `pick_device` sees a
machine faked with `probes.replace` (CUDA/MPS availability), and the CPU paths run with CUDA made
to look available while everything that would initialise it is forbidden. The CUDA checks
(`@requires_cuda`) repeat the placement checks on a real GPU.
"""
import ast
import re

import pytest
import torch
from torch import nn

from grader import probes
from grader.testing import assert_close, check, requires_cuda

CUDA_LITERAL = re.compile(r"^cuda(:\d+)?$")
INIT_CALLS = ("torch.cuda._lazy_init", "torch.cuda.init", "torch.cuda.synchronize", "torch.cuda.current_device",
              "torch.cuda.set_device", "torch.cuda.current_stream", "torch.cuda.empty_cache",
              "torch.cuda.memory_allocated", "torch.Tensor.cuda", "torch.Tensor.pin_memory")


def _describe(obj):
    """Plain data for a nested batch: container type names, tensor devices/shapes, leaves as repr."""
    from grader import probes

    if isinstance(obj, torch.Tensor):
        return ("tensor", obj.device.type, tuple(obj.shape))
    if isinstance(obj, dict):
        return (probes.qualified_name(obj), [(k, _describe(v)) for k, v in obj.items()])
    if isinstance(obj, (list, tuple)):
        return (probes.qualified_name(obj), [_describe(v) for v in obj])
    return ("leaf", probes.qualified_name(obj), repr(obj))


def _batch():
    """Runs in the worker: a nested batch with a namedtuple, a dict, a list, a tuple and non-tensors."""
    from collections import namedtuple

    Pair = namedtuple("Pair", ["images", "labels"])
    return {"pair": Pair(torch.randn(2, 3), torch.tensor([1, 0])),
            "extra": [torch.ones(4), "keep-me", 7, None, (torch.zeros(1), 2.5)],
            "meta": {"ids": [3, 4], "name": "batch-0"}}


def _expected(device):
    pair = "test_hidden.Pair"
    return ("builtins.dict", [
        ("pair", (pair, [("tensor", device, (2, 3)), ("tensor", device, (2,))])),
        ("extra", ("builtins.list", [("tensor", device, (4,)), ("leaf", "builtins.str", "'keep-me'"),
                                     ("leaf", "builtins.int", "7"), ("leaf", "builtins.NoneType", "None"),
                                     ("builtins.tuple", [("tensor", device, (1,)), ("leaf", "builtins.float", "2.5")])])),
        ("meta", ("builtins.dict", [("ids", ("builtins.list", [("leaf", "builtins.int", "3"), ("leaf", "builtins.int", "4")])),
                                    ("name", ("leaf", "builtins.str", "'batch-0'"))]))])


def _same_structure(seen, device):
    """Compare ignoring the module that defined the namedtuple (the probe's module name varies)."""
    def norm(d):
        if isinstance(d, tuple) and len(d) == 2 and isinstance(d[0], str) and d[0].endswith(".Pair"):
            return ("Pair", norm(d[1]))
        if isinstance(d, (list, tuple)):
            return type(d)(norm(v) for v in d)
        return d
    return norm(seen) == norm(_expected(device))


def _move(mod, device, describe, make):
    return describe(mod.move_batch(make(), device))


@check("device", weight=2)
def test_move_batch_meta(sub):
    for device in ("meta", torch.device("meta")):
        seen = sub.probe(_move, sub, device, _describe, _batch)
        assert _same_structure(seen, "meta"), (
            f"move_batch(batch, {device!r}) should give every tensor on meta and keep the containers "
            f"(namedtuple, dict, list, tuple) and the non-tensors as they were; got {seen}")


@requires_cuda
@check("device", weight=2)
def test_move_batch_cuda(sub):
    for device in ("cuda", torch.device("cuda", 0)):
        seen = sub.probe(_move, sub, device, _describe, _batch)
        assert _same_structure(seen, "cuda"), f"move_batch(batch, {device!r}) gave {seen}"


@check("value", weight=2)
def test_same_object_when_already_there(sub):
    def observe(mod):
        on_meta, on_cpu = torch.empty(3, device="meta"), torch.arange(4.0)
        out = mod.move_batch({"m": on_meta, "c": [on_cpu]}, "meta")
        back = mod.move_batch([on_cpu, (on_cpu,)], torch.device("cpu"))
        return {"meta_same": out["m"] is on_meta, "moved": out["c"][0].device.type,
                "cpu_same": [back[0] is on_cpu, back[1][0] is on_cpu], "values": back[0].clone()}

    seen = sub.probe(observe, sub)
    assert seen["moved"] == "meta", f"a CPU tensor moved to meta ended on {seen['moved']}"
    assert seen["meta_same"], "a tensor already on the target device (meta) should come back as the same object, not a copy"
    assert seen["cpu_same"] == [True, True], "CPU tensors moved to torch.device('cpu') should come back as the same objects"
    assert_close(seen["values"], torch.arange(4.0), what="a CPU tensor moved to the CPU")


def _non_blocking(mod, device, flag, make):
    from grader import probes

    with probes.spy("torch.Tensor.to", "torch.Tensor.copy_", "torch.Tensor.cuda", module=mod) as seen:
        out = mod.move_batch(make(), device, non_blocking=flag) if flag is not None else mod.move_batch(make(), device)
    flags = []
    for _, args, kwargs in seen.calls:
        nb = kwargs.get("non_blocking")
        if nb is None and len(args) > 1 and isinstance(args[-1], bool):
            nb = args[-1]  # copy_(src, True) / to(device, dtype, True)
        flags.append(bool(nb))
    return flags, out["pair"].images.device.type


@check("device")
def test_non_blocking_forwarded(sub):
    # CPU stand-in for the pinned-memory check: the copies to `meta` carry the flag they were given.
    for flag, want in ((None, True), (True, True), (False, False)):
        flags, where = sub.probe(_non_blocking, sub, "meta", flag, _batch)
        assert where == "meta" and len(flags) >= 4, f"move_batch(..., 'meta') made {len(flags)} copies of 4 tensors"
        asked = "the default" if flag is None else f"non_blocking={flag}"
        assert all(f is want for f in flags), f"with {asked} the copies were made with non_blocking={flags}"


@requires_cuda
@check("device")
def test_pinned_non_blocking_cuda(sub):
    def pinned(mod):
        from grader import probes

        batch = {"x": torch.randn(64, 8).pin_memory(), "y": [torch.arange(64).pin_memory()]}
        with probes.spy("torch.Tensor.to", "torch.Tensor.copy_", "torch.Tensor.cuda", module=mod) as seen:
            out = mod.move_batch(batch, "cuda")
        torch.cuda.synchronize()
        flags = [bool(kw.get("non_blocking") or (len(a) > 1 and a[-1] is True)) for _, a, kw in seen.calls]
        return flags, out["x"].device.type, out["x"].cpu(), batch["x"].clone()

    flags, where, moved, original = sub.probe(pinned, sub)
    assert where == "cuda" and flags and all(flags), f"pinned tensors should move with non_blocking=True: {flags}"
    assert torch.equal(moved, original), "the pinned tensor's values changed on the way to CUDA"


def _cuda_literals(tree):
    """(line, text) of `.cuda(` calls and 'cuda' literals passed as a device (`device=`, the
    arguments of `.to(...)` and `torch.device(...)`), outside pick_device. A string compared or
    tested (`dev.type == "cuda"`, `str(dev).startswith("cuda")`) is no device."""
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "pick_device":
            skip.update(id(n) for n in ast.walk(node))
    found = []
    for node in ast.walk(tree):
        if id(node) in skip or not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
        if name == "cuda":
            found.append((node.lineno, ".cuda(...)"))
        # where a string is a device: any `device=`, and every argument of `.to(...)` / `torch.device(...)`
        as_device = [*node.args, *(k.value for k in node.keywords)] if name in ("to", "device") else []
        for arg in as_device + [k.value for k in node.keywords if k.arg == "device"]:
            for inner in ast.walk(arg):
                if id(inner) in skip:
                    continue
                if isinstance(inner, ast.Constant) and isinstance(inner.value, str) and CUDA_LITERAL.match(inner.value):
                    found.append((node.lineno, repr(inner.value)))
    return sorted(set(found))


def _cuda_asked(mod, make, model, x, target):
    """Probe: move_batch(batch, target) and forward_on(model, x, target) for a CUDA `target`
    (cuda:1) on a simulated machine. A TorchFunctionMode sees every CUDA device torch is asked
    for, whatever spelling reached it (`.to(...)`, `.cuda()` from `getattr(model, "cuda")`, a
    factory's `device=`, a reference kept from import), records it and puts the tensor on `meta`
    instead: (what was asked, by which call; where the batch, the model and the output ended)."""
    from torch.overrides import TorchFunctionMode

    from grader import probes

    def as_device(value):
        return torch.device("cuda", value) if isinstance(value, int) else torch.device(value)

    class Simulated(TorchFunctionMode):
        def __init__(self):
            super().__init__()
            self.asked = []

        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = dict(kwargs or {})
            if func is torch.Tensor.cuda:
                device = args[1] if len(args) > 1 else kwargs.get("device")
                self.asked.append((".cuda()", str(torch.device("cuda") if device is None else as_device(device))))
                return args[0].to("meta")
            if func is torch.Tensor.pin_memory:  # needs a real GPU: nothing to observe here
                return args[0]
            if func is torch.Tensor.to:
                device, dtype, non_blocking, _ = torch._C._nn._parse_to(*args[1:], **kwargs)
                if device is not None and device.type == "cuda":
                    self.asked.append((".to()", str(device)))
                    return func(args[0], "meta", dtype=dtype, non_blocking=non_blocking)
            device = kwargs.get("device")
            if device is not None and as_device(device).type == "cuda":
                self.asked.append((f"{getattr(func, '__name__', 'a factory')}(device=)", str(as_device(device))))
                kwargs["device"] = "meta"
            return func(*args, **kwargs)

    seen = {"error": None, "batch": None, "params": None, "out": None}
    with probes.replace("torch.cuda.is_available", returns=True, module=mod), \
            probes.replace("torch.cuda._lazy_init", "torch.cuda.synchronize", returns=None, module=mod), \
            Simulated() as sim:
        try:
            out = mod.move_batch(make(), target)
            seen["batch"] = sorted({t.device.type for t in (out["pair"].images, out["pair"].labels, out["extra"][0])})
            y = mod.forward_on(model, x, target)
            seen["params"] = sorted({p.device.type for p in nn.Module.parameters(model)}
                                    | {b.device.type for b in nn.Module.buffers(model)})
            seen["out"] = y.device.type if isinstance(y, torch.Tensor) else type(y).__name__
        except Exception as exc:  # noqa: BLE001 - reported as what happened
            seen["error"] = f"{type(exc).__name__}: {exc}"[:200]
    seen["asked"] = sim.asked
    return seen


@check("api")
def test_no_hard_coded_cuda(sub):
    sub.static.require_implemented("pick_device", "move_batch", "forward_on")
    seen = sub.probe(_move, sub, "meta", _describe, _batch)
    assert _same_structure(seen, "meta"), "move_batch must work before its style earns credit"
    # At run time (authoritative: a name built with getattr, an alias or a kept reference meets
    # torch's function dispatch all the same): given cuda:1, every CUDA device torch is asked for
    # is cuda:1; `.cuda()` (the current device) or a literal "cuda" is not
    for target in ("cuda:1", torch.device("cuda", 1)):
        seen = sub.probe(_cuda_asked, sub, _batch, _model(), torch.randn(6, 5), target)
        wrong = sorted({f"{call} -> {device}" for call, device in seen["asked"] if device != "cuda:1"})
        assert not wrong, (f"given {target!r}, the code asked torch for another CUDA device: {', '.join(wrong)}; "
                           "only pick_device may name CUDA: the rest takes the device it is given")
        assert seen["error"] is None and seen["batch"] == ["meta"] and seen["params"] == ["meta"] \
            and seen["out"] == "meta", (
                f"move_batch / forward_on given {target!r} on a simulated CUDA machine did not move everything "
                f"there through torch (error {seen['error']}, batch on {seen['batch']}, model on {seen['params']}, "
                f"output on {seen['out']})")
    # and in the source (a secondary reason: a literal that equals the device given)
    found = _cuda_literals(sub.static.tree)
    assert not found, ("only pick_device may name CUDA: the rest takes the device it is given "
                       f"(found {', '.join(f'line {n}: {t}' for n, t in found)})")


def _model():
    torch.manual_seed(64)
    model = nn.Sequential(nn.Linear(5, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 3))
    with torch.no_grad():
        model[1].running_mean.uniform_(-1, 1)
        model[1].running_var.uniform_(0.5, 2)
    return model.eval()


def _forward_on(mod, model, x, model_device, x_device, device):
    from torch import nn

    nn.Module.to(model, model_device)
    x = x.to(x_device)
    out = mod.forward_on(model, x, device)
    params = sorted({p.device.type for p in nn.Module.parameters(model)})
    buffers = sorted({b.device.type for b in nn.Module.buffers(model)})
    shape = tuple(out.shape) if isinstance(out, torch.Tensor) else type(out).__name__
    kind = out.device.type if isinstance(out, torch.Tensor) else None
    return params, buffers, kind, shape


@check("device", weight=2)
def test_forward_on_meta(sub):
    # CPU fallback of the CUDA check: model and input start on different devices (cpu / meta).
    for model_device, x_device in (("cpu", "meta"), ("meta", "cpu")):
        params, buffers, kind, shape = sub.probe(_forward_on, sub, _model(), torch.randn(6, 5), model_device, x_device, "meta")
        where = f"model on {model_device}, input on {x_device}, device='meta'"
        assert params == buffers == ["meta"], f"{where}: afterwards the model's parameters are on {params}, its buffers on {buffers}"
        assert (kind, shape) == ("meta", (6, 3)), f"{where}: the output is {kind} {shape}, expected meta (6, 3)"


@check("value")
def test_forward_on_values(sub):
    model, x = _model(), torch.randn(6, 5)
    with torch.no_grad():
        expected = model(x)
    out = sub.forward_on(model, x, torch.device("cpu"))
    assert_close(out, expected, what="forward_on(model, x, 'cpu')")


@requires_cuda
@check("device", weight=2)
def test_forward_on_cuda(sub):
    for model_device, x_device in (("cpu", "cuda"), ("cuda", "cpu")):
        params, buffers, kind, shape = sub.probe(_forward_on, sub, _model(), torch.randn(6, 5), model_device, x_device, "cuda")
        assert params == buffers == ["cuda"] and (kind, shape) == ("cuda", (6, 3)), \
            f"model on {model_device}, input on {x_device}: params {params}, buffers {buffers}, output {kind} {shape}"


def _pick(mod, cuda, mps, prefer):
    from grader import probes

    with probes.replace("torch.cuda.is_available", returns=cuda, module=mod), \
            probes.replace("torch.backends.mps.is_available", returns=mps, module=mod):
        try:
            device = mod.pick_device(prefer) if prefer is not None else mod.pick_device()
        except NotImplementedError:
            raise
        except RuntimeError as exc:
            return "RuntimeError", str(exc)[:200]
    return ("device", str(device)) if isinstance(device, torch.device) else ("wrong type", type(device).__name__)


@check("value", weight=2)
@pytest.mark.parametrize("cuda, mps, prefer, want", [
    (False, False, None, ("device", "cpu")),
    (True, True, None, ("device", "cuda")),
    (False, True, None, ("device", "mps")),
    (True, False, "cpu", ("device", "cpu")),
    (False, True, "mps", ("device", "mps")),
    (True, False, "cuda", ("device", "cuda")),
    (False, False, "cuda", "RuntimeError"),
    (True, False, "mps", "RuntimeError"),
], ids=["cpu-only", "cuda-first", "mps-next", "prefer-cpu", "prefer-mps", "prefer-cuda",
        "cuda-missing", "mps-missing"])
def test_pick_device(sub, cuda, mps, prefer, want):
    got = sub.probe(_pick, sub, cuda, mps, prefer)
    machine = f"CUDA {'available' if cuda else 'absent'}, MPS {'available' if mps else 'absent'}"
    if want == "RuntimeError":
        assert got[0] == "RuntimeError", f"pick_device({prefer!r}) with {machine} should raise RuntimeError, got {got}"
    else:
        assert got == want, f"pick_device({'' if prefer is None else repr(prefer)}) with {machine}: expected torch.device('{want[1]}'), got {got}"


@check("device")
def test_no_cuda_touch_on_cpu_path(sub):
    # On a CPU-only build torch.cuda.is_initialized() is always False, so CUDA is made to look
    # available and every call that would initialise it is forbidden (and recorded).
    def cpu_path(mod, make, model, x, calls):
        from grader import probes

        with probes.replace("torch.cuda.is_available", returns=True, module=mod), \
                probes.forbid(*calls, module=mod) as touched:
            results = []
            try:
                out = mod.move_batch(make(), "cpu")
                results.append(out["pair"].images.device.type)
                y = mod.forward_on(model, x, "cpu")
                results.append(y.device.type if isinstance(y, torch.Tensor) else None)
            except probes.ForbiddenAPIError:
                pass
        return touched.names(), results, torch.cuda.is_initialized()

    touched, results, initialised = sub.probe(cpu_path, sub, _batch, _model(), torch.randn(6, 5), INIT_CALLS)
    assert not touched, f"the CPU path called {sorted(set(touched))}, which initialise or need CUDA"
    assert results == ["cpu", "cpu"], f"move_batch / forward_on to 'cpu' gave tensors on {results}"
    assert not initialised, "CUDA was initialised by the CPU path"


@requires_cuda
@check("device")
def test_cuda_not_initialised_on_cpu_path(sub):
    def fresh(mod, make):
        before = torch.cuda.is_initialized()
        out = mod.move_batch(make(), "cpu")
        return before, torch.cuda.is_initialized(), out["pair"].images.device.type

    before, after, where = sub.probe(fresh, sub, _batch)
    assert where == "cpu" and not before, f"CUDA was already initialised before the call (before={before})"
    assert not after, "move_batch(batch, 'cpu') initialised CUDA"
