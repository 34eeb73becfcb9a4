"""Hidden checks for 01_tensor_factories."""
import ast

import numpy as np
import pytest
import torch

from grader.testing import assert_close, assert_device, assert_dtype, assert_shape, check, requires_cuda

# --- from_data ------------------------------------------------------------------------------------

DTYPE_CASES = [
    ([1, 2, 3], None, torch.int64),
    ([1.0, 2.5], None, torch.float32),
    ([1, 2.5], None, torch.float32),
    ([True, False], None, torch.bool),
    ([[1, 2], [3, 4]], None, torch.int64),
    (np.array([0.1, 0.2, 0.3], dtype=np.float64), None, torch.float64),
    ([1.5, -2.25], torch.float16, torch.float16),
]
DTYPE_IDS = ["ints", "floats", "mixed", "bools", "nested", "ndarray_float64", "explicit_float16"]


@check("dtype", weight=0.5)
@pytest.mark.parametrize(("data", "dtype", "expected"), DTYPE_CASES, ids=DTYPE_IDS)
def test_inferred_dtype(sub, data, dtype, expected):
    out = sub.from_data(data) if dtype is None else sub.from_data(data, dtype=dtype)
    label = f"from_data({data!r}{'' if dtype is None else f', dtype={dtype}'})"
    assert_dtype(out, expected, what=label)
    assert_close(out, torch.tensor(data, dtype=dtype), what=label)


@check("shape", weight=2)
def test_scalar_is_0dim(sub):
    out = sub.from_data(3)
    assert_shape(out, (), what="from_data(3)")
    assert_close(out, torch.tensor(3), what="from_data(3)")
    out = sub.from_data(2.5)
    assert_shape(out, (), what="from_data(2.5)")
    assert_close(out, torch.tensor(2.5), what="from_data(2.5)")


def _source_array(case):
    """The ndarray of each independence case (built in the worker: pickling makes arrays
    contiguous, and the point is the layouts): C order, Fortran order, a strided view, 0-d,
    other dtypes, and a `dtype=` equal to the array's own (where `.to(dtype)` is a no-op)."""
    import numpy as np

    if case == "fortran_float32":
        return np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    if case == "strided_int64":
        return np.arange(12, dtype=np.int64).reshape(3, 4)[:, ::2]
    if case == "zero_dim":
        return np.array(2.5)
    if case == "bool":
        return np.array([True, False, True])
    return np.array([1.0, 2.0, 3.0])          # float64, C order ("float64", "explicit_same_dtype")


COPY_CASES = {"float64": None, "fortran_float32": None, "strided_int64": None, "zero_dim": None, "bool": None,
              "explicit_same_dtype": torch.float64}


@check("value", weight=2)
@pytest.mark.parametrize("case", list(COPY_CASES))
def test_ndarray_is_copied(sub, case):
    def mutate_after(mod, case, dtype):
        arr = _source_array(case)
        out = mod.from_data(arr) if dtype is None else mod.from_data(arr, dtype=dtype)
        if arr.dtype == np.bool_:
            arr[...] = ~arr
        else:
            arr[...] = 99                       # through the view too: the base's memory
        return out

    dtype = COPY_CASES[case]
    source = _source_array(case)
    expected = torch.tensor(source, dtype=dtype)
    label = f"from_data({case.replace('_', ' ')} array{'' if dtype is None else f', dtype={dtype}'})"
    out = sub.probe(mutate_after, sub, case, dtype)
    assert_dtype(out, expected.dtype, what=label)
    assert_shape(out, tuple(expected.shape), what=label)
    assert torch.equal(out, expected), (
        f"{label} shares memory with the array (writing the array after the call changed the tensor): copy")


_LEGACY_TYPED = {f"torch.{name}Tensor" for name in
                 ("Float", "Double", "Half", "BFloat16", "Byte", "Char", "Short", "Int", "Long", "Bool",
                  "ComplexFloat", "ComplexDouble")}
_LEGACY_TYPED |= {name.replace("torch.", "torch.cuda.") for name in _LEGACY_TYPED}


def _resolve(node, aliases):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([aliases.get(node.id, node.id), *reversed(parts)])


def _legacy_constructor_uses(static):
    """(line, name) of torch.Tensor(...) calls and of any legacy typed constructor outside annotations."""
    tree, aliases = static.tree, static.aliases
    in_annotations = set()
    for node in ast.walk(tree):
        annotations = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            annotations = [a.annotation for a in [*args.posonlyargs, *args.args, *args.kwonlyargs,
                                                  args.vararg, args.kwarg] if a is not None]
            annotations.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            annotations = [node.annotation]
        for ann in annotations:
            if ann is not None:
                in_annotations.update(id(n) for n in ast.walk(ann))
    found = []
    for node in ast.walk(tree):
        if id(node) in in_annotations:
            continue
        if isinstance(node, ast.Call) and _resolve(node.func, aliases) == "torch.Tensor":
            found.append((node.lineno, "torch.Tensor(...)"))
        elif isinstance(node, (ast.Attribute, ast.Name)):
            name = _resolve(node, aliases)
            if name in _LEGACY_TYPED:
                found.append((node.lineno, name))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in ("torch", "torch.cuda"):
            for alias in node.names:
                if f"{node.module}.{alias.name}" in _LEGACY_TYPED:
                    found.append((node.lineno, f"{node.module}.{alias.name}"))
    return sorted(set(found))


def _legacy_seen(mod, typed, cases, sizes):
    """Probe: the legacy constructors the candidate's module holds or calls, whatever the spelling.

    - held: a typed class (`torch.FloatTensor`...) reachable from the module's globals (through
      containers, functions' defaults and closures, partials, classes and objects it defined), as a
      name built at run time and kept from import (`getattr(torch, "Float" + "Tensor")`) leaves it;
    - called: `torch.Tensor(...)` through any reference (the class's `__new__` is replaced for the
      block, which every route to the class meets), and the typed classes through torch's module
      attributes (which `getattr` at call time reaches), while from_data and standard_tensors run.
    Calls from torch's own code do not count."""
    import functools
    import os
    import sys
    import types

    from grader import probes

    legacy = {}
    for name in typed:
        owner, attr = probes._resolve(name)
        if hasattr(owner, attr):  # this build's typed classes
            legacy[id(getattr(owner, attr))] = name
    typed = sorted(legacy.values())
    held, seen, todo = [], set(), [(f"{mod.__name__}.{k}", v) for k, v in vars(mod).items()]
    while todo and len(seen) < 20_000:
        path, obj = todo.pop()
        if id(obj) in legacy:
            held.append(f"{legacy[id(obj)]} (held as {path})")
            continue
        if id(obj) in seen or isinstance(obj, (str, bytes, int, float, complex, bool, type(None), types.ModuleType)):
            continue
        seen.add(id(obj))
        if isinstance(obj, dict):
            todo += [(f"{path}[{k!r}]", v) for k, v in obj.items()]
        elif isinstance(obj, (list, tuple, set, frozenset)):
            todo += [(f"{path}[{i}]", v) for i, v in enumerate(obj)]
        elif isinstance(obj, functools.partial):
            todo += [(f"{path}.func", obj.func), (f"{path}.args", obj.args), (f"{path}.keywords", obj.keywords)]
        elif isinstance(obj, types.MethodType):
            todo += [(f"{path}.__func__", obj.__func__), (f"{path}.__self__", obj.__self__)]
        elif isinstance(obj, types.FunctionType):
            if obj.__module__ == mod.__name__:
                todo += [(f"{path}.__defaults__", obj.__defaults__ or ()),
                         (f"{path}.__kwdefaults__", obj.__kwdefaults__ or {})]
                for cell in obj.__closure__ or ():
                    try:
                        todo.append((f"{path}.<closure>", cell.cell_contents))
                    except ValueError:  # an empty cell
                        pass
        elif isinstance(obj, type):
            if obj.__module__ == mod.__name__:
                todo += [(f"{path}.{k}", v) for k, v in vars(obj).items()]
        elif type(obj).__module__ == mod.__name__:
            todo += [(f"{path}.{k}", v) for k, v in probes.instance_attrs(obj).items()]
    torch_dir = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
    called = []
    base_new = torch._C.TensorBase.__new__

    def recording_new(cls, *args, **kwargs):
        if not sys._getframe(1).f_code.co_filename.startswith(torch_dir):
            called.append("torch.Tensor(...)" if cls is torch.Tensor else f"{cls.__module__}.{cls.__qualname__}(...)")
        return base_new(cls, *args, **kwargs)

    with probes.substitute("torch.Tensor.__new__", staticmethod(recording_new)), \
            probes.spy(*typed, module=mod) as typed_calls:
        for data, kwargs in cases:
            try:
                mod.from_data(data, **kwargs)
            except Exception:  # noqa: BLE001 - a wrong answer is graded by the value checks
                pass
        for n in sizes:
            try:
                mod.standard_tensors(n)
            except Exception:  # noqa: BLE001
                pass
    return sorted(set(held)), sorted(set(called + typed_calls.names()))


@check("api", weight=2)
def test_no_legacy_constructors(sub):
    sub.static.require_implemented("from_data", "standard_tensors")
    # credit for how tensors are made only goes to functions that make the right ones
    assert_close(sub.from_data([[1, 2], [3, 4]]), torch.tensor([[1, 2], [3, 4]]), what="from_data([[1, 2], [3, 4]])")
    tensors = sub.standard_tensors(3)
    assert isinstance(tensors, dict) and isinstance(tensors.get("eye"), torch.Tensor), \
        f"standard_tensors(3) must return a dict of tensors, got {type(tensors).__name__}"
    assert_close(tensors["eye"], torch.eye(3), what="standard_tensors(3)['eye']")
    # at run time (authoritative: a name built with getattr, an alias or a kept reference is the
    # same class, held by the module or met when called)
    cases = [([1, 2, 3], {}), ([1.0, 2.5], {}), ([True, False], {}), ([1.5, -2.25], {"dtype": torch.float16}),
             (np.arange(3.0), {}), (3, {}), (2.5, {}), ([[1, 2], [3, 4]], {"device": "meta"})]
    held, called = sub.probe(_legacy_seen, sub, sorted(_LEGACY_TYPED), cases, [3])
    assert not called, (f"from_data / standard_tensors called the legacy constructor {', '.join(called)} at run time: "
                        "create tensors from data with torch.tensor and empty ones with the factory functions")
    assert not held, (f"the module holds the legacy constructor {', '.join(held)}: create tensors from data with "
                      "torch.tensor and empty ones with the factory functions")
    # and in the source (a secondary reason: a branch the run did not take)
    found = _legacy_constructor_uses(sub.static)
    assert not found, (f"line {found[0][0]} uses the legacy constructor {found[0][1]}: create tensors from data "
                       f"with torch.tensor and empty ones with the factory functions")


# --- standard_tensors -----------------------------------------------------------------------------

@check("dtype")
def test_standard_dtypes(sub):
    out = sub.standard_tensors(6)
    expected = {"zeros": torch.float32, "eye": torch.float32, "arange": torch.int64,
                "linspace": torch.float32, "randn": torch.float32}
    assert sorted(out) == sorted(expected), f"expected the keys {sorted(expected)}, got {sorted(out)}"
    for key, dtype in expected.items():
        assert_dtype(out[key], dtype, what=f"standard_tensors(6)[{key!r}]")


@check("dtype")
def test_dtypes_whatever_the_default(sub):
    # "f32" in the docstring is float32, not "the default dtype": a caller may have set another.
    def under_float64_default(mod):
        previous = torch.get_default_dtype()
        torch.set_default_dtype(torch.float64)
        try:
            out = mod.standard_tensors(4)
        finally:
            torch.set_default_dtype(previous)
        return {k: v.dtype for k, v in out.items()} if isinstance(out, dict) else type(out).__name__

    dtypes = sub.probe(under_float64_default, sub)
    assert isinstance(dtypes, dict), f"standard_tensors returned {dtypes}, not a dict"
    expected = {"zeros": torch.float32, "eye": torch.float32, "arange": torch.int64,
                "linspace": torch.float32, "randn": torch.float32}
    wrong = {k: str(dtypes.get(k)) for k, d in expected.items() if dtypes.get(k) != d}
    assert not wrong, (f"with torch.set_default_dtype(torch.float64), standard_tensors(4) gave {wrong}: "
                       "pass dtype=torch.float32 explicitly")


@check("value", weight=2)
def test_standard_values(sub):
    n = 7
    out = sub.standard_tensors(n)
    assert_close(out["zeros"], torch.zeros(n, n), what="'zeros'")
    assert_close(out["eye"], torch.eye(n), what="'eye'")
    assert torch.trace(out["eye"]).item() == n, f"trace of 'eye' should be {n}"
    assert_close(out["arange"], torch.arange(n), what="'arange'")
    lin = out["linspace"]
    assert_shape(lin, (n,), what="'linspace' (n points, both ends included)")
    assert lin[0].item() == 0.0, f"'linspace' must start at exactly 0.0, got {lin[0].item()}"
    assert lin[-1].item() == 1.0, f"'linspace' must end at exactly 1.0, got {lin[-1].item()}"
    assert_close(lin, torch.linspace(0, 1, n), what="'linspace'")
    assert_shape(out["randn"], (n,), what="'randn'")


@check("value")
def test_randn_follows_seed(sub):
    def draw(mod):
        draws = []
        for seed in (123, 123, 124):
            torch.manual_seed(seed)
            draws.append(mod.standard_tensors(2000)["randn"])
        return draws

    first, again, other = sub.probe(draw, sub)
    assert_shape(first, (2000,), what="'randn'")
    assert_dtype(first, torch.float32, what="'randn'")
    assert torch.equal(first, again), "'randn' differs after the same torch.manual_seed: draw it with torch's RNG"
    assert not torch.equal(first, other), "'randn' does not change with the seed: use torch's global RNG"
    mean, std = first.mean().item(), first.std().item()
    assert abs(mean) < 0.1 and abs(std - 1.0) < 0.1, \
        f"'randn' should be standard normal, got mean {mean:.3f} and std {std:.3f}"


def _created_on(mod, device, n):
    """Run standard_tensors(n, device), recording Tensor.to / Tensor.cuda calls that move a tensor."""
    calls = []
    saved = {name: torch.Tensor.__dict__.get(name) for name in ("to", "cuda")}
    originals = {name: getattr(torch.Tensor, name) for name in saved}

    def spy(name):
        def wrapper(self, *args, **kwargs):
            result = originals[name](self, *args, **kwargs)
            # Only moves count: torch's own meta kernel for eye calls Tensor.to(dtype).
            if isinstance(result, torch.Tensor) and result.device != self.device:
                calls.append(f"Tensor.{name}")
            return result
        return wrapper

    for name in saved:
        setattr(torch.Tensor, name, spy(name))
    try:
        out = mod.standard_tensors(n, device=device)
    finally:
        for name, value in saved.items():
            if value is None:
                delattr(torch.Tensor, name)
            else:
                setattr(torch.Tensor, name, value)
    return out, calls


def _assert_created_on(out, calls, device, n):
    for key, shape in {"zeros": (n, n), "eye": (n, n), "arange": (n,), "linspace": (n,), "randn": (n,)}.items():
        assert_device(out[key], device, what=f"standard_tensors(device={device!r})[{key!r}]")
        assert_shape(out[key], shape, what=f"standard_tensors(device={device!r})[{key!r}]")
    assert not calls, (f"standard_tensors(device={device!r}) called {sorted(set(calls))}: pass device= to the "
                       f"factory functions instead of creating on the CPU and moving")


@check("device")
def test_created_directly_on_meta(sub):
    # CPU fallback of the CUDA check: the meta device needs no GPU.
    out, calls = sub.probe(_created_on, sub, "meta", 5)
    _assert_created_on(out, calls, "meta", 5)


@check("device")
def test_from_data_on_meta(sub):
    out = sub.from_data([1, 2, 3], device="meta")
    assert_device(out, "meta", what="from_data([1, 2, 3], device='meta')")
    assert_dtype(out, torch.int64, what="from_data([1, 2, 3], device='meta')")
    assert_shape(out, (3,), what="from_data([1, 2, 3], device='meta')")


@requires_cuda
@check("device")
def test_created_directly_on_cuda(sub):
    out, calls = sub.probe(_created_on, sub, "cuda", 5)
    _assert_created_on(out, calls, "cuda", 5)
    assert_close(out["eye"], torch.eye(5, device="cuda"), what="'eye' on CUDA")
    moved = sub.from_data([1.5, 2.5], device="cuda")
    assert_close(moved, torch.tensor([1.5, 2.5], device="cuda"), what="from_data(..., device='cuda')")
