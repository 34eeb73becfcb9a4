"""The public checks under plain pytest, in a candidate bundle: `pytest`, `pytest
exercises/tensors/05_broadcast_bias/test_public.py -x`, `--pdb`, `--lf`, an IDE's test explorer.

The bundle's conftest.py (written by `grader export`) loads this plugin. It provides what the
grader's judge provides to a check (`grader.judge.plugin`): the fixtures `sub`, `device` and
`seed`, the `check` marker, and the seed set before every check. The difference is where the
candidate's code runs: here in the pytest process itself, imported afresh for each check, with
the check's own working directory (a temporary folder, as the worker's scratch folder) - the
candidate's own code on their own machine needs no sandbox, and a debugger (`--pdb`, an IDE's
breakpoints) stops in it. So there are no time or memory limits, exceptions are the candidate's
own (full traceback), and what the code prints is pytest's captured output.

`sub` is the exercise's file next to the check (`<name>.py`, or its notebook when that is the one
saved last, as `grader check` chooses). What crosses between a check and the candidate's code
crosses as it does between the judge and its worker: arguments are copies (a tensor that requires
grad is passed itself, so gradients flow back, as the judge's gradient bridge does), results are
data copies (a tensor in a call's graph stays in it), and any other object comes back as a handle
(`LocalHandle`: attributes, calls, items, `remote_type`), so a check passes or fails here as it
does under the grader. Beyond the module's names, checks use:
`sub.probe(fn, *args)` (runs `fn` here; `sub` among the arguments stands for the module),
`sub.timed`, `sub.cpu_timed`, `sub.measure_memory` (peak growth of the traced Python allocations:
a rough figure), `sub.verify(fn, *args)`, `sub.read_file(path)` / `sub.write_file(path, data)`
(in the check's working directory), `sub.static`, `sub.source`, `sub.path`, `sub.scratch`,
`sub.module`. A module-level name the file lacks fails as the grader says it.

The grader never loads this: its judge runs pytest with `--noconftest` and its own plugin, so a
bundle's conftest.py (the candidate's to edit) changes nothing in grading. Results here are for
working; the grade comes from `grader check` (the sandboxed judge, the same messages) and then
the hidden checks.
"""

from __future__ import annotations

import collections
import copy
import functools
import importlib.util
import random
import sys
import time
import tracemalloc
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
import torch

SEED = 0  # the judge's default seed (`grader grade --seed` is not a candidate's option)


class SubmissionProblem(AssertionError):
    """The exercise's file is missing, cannot be imported, or lacks a name a check uses."""


def seed_everything(seed: int = SEED) -> None:
    """As the judge and its worker do before every check (grader.sandbox.worker_setup.seed_everything)."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False


# --- pytest hooks and fixtures ------------------------------------------------------------------------

def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "check(kind, weight=1, timeout_s=None): a graded check (grader.testing.check)")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "device" in metafunc.fixturenames:  # as the judge: every device check on CPU, and on CUDA where there is one
        metafunc.parametrize("device", [
            "cpu",
            pytest.param("cuda", marks=pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA not available")),
        ])


@pytest.fixture(autouse=True)
def _grader_seed() -> None:
    seed_everything()


@pytest.fixture
def seed() -> int:
    return SEED


@pytest.fixture
def sub(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    folder = Path(request.node.path).resolve().parent
    monkeypatch.chdir(tmp_path)  # files the code writes land in the check's own folder
    submission = LocalSubmission.of(folder, tmp_path)
    try:
        yield submission
    finally:
        submission.close()


# --- the candidate's module, in this process ----------------------------------------------------------

@functools.cache
def _catalog(root: Path):
    from grader.catalog import Catalog

    return Catalog.load(root, allow_missing_stub=True, packs=[])


class LocalSubmission:
    """What a check sees of the candidate's module (the in-process twin of grader.judge.proxy)."""

    def __init__(self, name: str, path: Path | None, scratch: Path, problem: str | None = None,
                 shown: str | None = None):
        self._name, self._path, self._scratch, self._problem = name, path, scratch, problem
        self._shown = shown or (path.name if path else f"{name}.py")
        self._module: ModuleType | None = None
        self._added_path: str | None = None

    @classmethod
    def of(cls, folder: Path, scratch: Path) -> LocalSubmission:
        """The exercise whose folder is `folder` (where its test_public.py is), with the file that
        `grader check` would check: the .py, or its notebook when that was saved last."""
        from grader.notebooks.locate import materialize
        from grader.submissions import locate

        root = folder.parent.parent.parent
        ex = next((e for e in _catalog(root).exercises if e.dir.resolve() == folder), None)
        if ex is None:
            raise SubmissionProblem(f"{folder} is not an exercise folder of {root} (exercises/<track>/<NN_name>/)")
        cand = locate(ex.dir.parent.parent.resolve(), [ex], explicit=True)[ex.id]
        if cand.path is None:
            return cls(ex.name, None, scratch, cand.problem)
        shown = None
        if cand.notebook is not None:  # its code cells as a module, as the grader builds it
            shown = cand.notebook.shown
            cand = materialize({ex.id: cand}, [ex], scratch / ".notebook")[ex.id]
            if cand.path is None:
                return cls(ex.name, None, scratch, cand.problem)
        return cls(ex.name, cand.path, scratch, shown=shown)

    # --- the file ----------------------------------------------------------------------------------

    @property
    def path(self) -> Path:
        if self._problem:
            raise SubmissionProblem(self._problem)
        assert self._path is not None
        return self._path

    @property
    def source(self) -> str:
        return self.path.read_text(encoding="utf-8")

    @property
    def static(self):
        from grader.judge.static import StaticView

        try:
            return StaticView(self.path, self.source)
        except SyntaxError as exc:
            raise SubmissionProblem(f"{self._shown} has a syntax error at line {exc.lineno}: {exc.msg}") from None

    @property
    def scratch(self) -> str:
        return str(self._scratch)

    @property
    def output(self) -> str:
        return ""  # what the code prints is pytest's captured output (shown for a failing check, or with -s)

    @property
    def module(self) -> ModuleType:
        """The candidate's module, imported afresh for this check (as the judge's fresh worker does)."""
        if self._module is None:
            path = self.path
            spec = importlib.util.spec_from_file_location(self._name, path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            self._added_path = str(path.parent)
            sys.path.insert(0, self._added_path)
            sys.modules[self._name] = module  # classes pickle and torch.save by their module's name
            try:
                spec.loader.exec_module(module)
            except BaseException:
                sys.modules.pop(self._name, None)
                raise
            self._module = module
        return self._module

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        module = self.module
        try:
            value = getattr(module, name)
        except AttributeError:
            raise SubmissionProblem(f"{self._name}.py defines no `{name}`: keep the stub's names and "
                                    f"signatures") from None
        return _received(value, f"{self._name}.{name}")

    # --- what checks run next to the code ----------------------------------------------------------

    def _here(self, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        module = self.module
        return _sent(args, module, self), _sent(kwargs, module, self)

    def probe(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        args, kwargs = self._here(args, kwargs)
        return _received(fn(*args, **kwargs), f"probe {getattr(fn, '__name__', 'probe')}()", graph=True)

    def timed(self, fn: Any, *args: Any, **kwargs: Any) -> tuple[Any, float]:
        args, kwargs = self._here(args, kwargs)
        start = time.perf_counter()
        answer = fn(*args, **kwargs)
        seconds = time.perf_counter() - start
        return _received(answer, "probe", graph=True), seconds

    def cpu_timed(self, fn: Any, *args: Any, **kwargs: Any) -> tuple[Any, float]:
        args, kwargs = self._here(args, kwargs)
        start = time.process_time()
        answer = fn(*args, **kwargs)
        seconds = time.process_time() - start
        return _received(answer, "probe", graph=True), seconds

    def measure_memory(self, fn: Any, *args: Any, count_held: bool = False, **kwargs: Any) -> tuple[Any, int]:
        """Rough: the peak of Python's traced allocations during the call (tensors' storage is
        not traced by tracemalloc); `grader check` measures the worker's resident memory."""
        tracemalloc.start()
        try:
            result = fn(*args, **kwargs)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        return result, peak

    def verify(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        return _received(fn(*_sent(args, None, self), **_sent(kwargs, None, self)), "verifier")

    def read_file(self, path: str, max_bytes: int = 64 << 20) -> bytes:
        target = self._scratch / path
        if target.stat().st_size > max_bytes:
            raise SubmissionProblem(f"{path} is over {max_bytes} bytes")
        return target.read_bytes()

    def write_file(self, path: str, data: bytes) -> None:
        target = self._scratch / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(bytes(data))

    def restart(self) -> None:
        self.close()

    def close(self) -> None:
        if self._module is not None and sys.modules.get(self._name) is self._module:
            del sys.modules[self._name]
        self._module = None
        if self._added_path is not None:
            try:
                sys.path.remove(self._added_path)
            except ValueError:
                pass
            self._added_path = None

    def __repr__(self) -> str:
        return f"<submission {self._name} at {self._path} (in this process: plain pytest)>"


# --- what crosses between a check and the candidate's code (as grader.sandbox.codec carries it) ---------

_ATOMS = (type(None), bool, int, float, complex, str, bytes, torch.dtype, torch.device, torch.Size)


def _sent(value: Any, module: ModuleType | None, sub: LocalSubmission) -> Any:
    """An argument as the worker receives it: `sub` is the module, a handle its object, a tensor
    a copy (one that requires grad, with grad mode on, itself: gradients flow back through it), any
    other object a deep copy (the judge pickles it), or itself where it cannot be copied."""
    if value is sub:
        return module
    if isinstance(value, LocalHandle):
        return object.__getattribute__(value, "_obj")
    if isinstance(value, torch.Tensor):
        if value.requires_grad and torch.is_grad_enabled():
            return value
        return value.detach().clone()
    if type(value) in (list, tuple):
        return type(value)(_sent(v, module, sub) for v in value)
    if type(value) is dict:
        return {k: _sent(v, module, sub) for k, v in value.items()}
    if isinstance(value, _ATOMS) or callable(value) and not isinstance(value, torch.nn.Module):
        return value  # functions and classes travel as themselves (cloudpickle: by value, the same code)
    try:
        return copy.deepcopy(value)
    except Exception:  # noqa: BLE001 - what cannot be copied is passed itself
        return value


def _received(value: Any, what: str, graph: bool = False, depth: int = 0) -> Any:
    """A result as the judge receives it: data is copied (tensors with their requires_grad and
    .grad; with `graph`, a call's tensor that requires grad stays in its graph, as the judge's
    gradient bridge keeps it), and any other object comes back as a `LocalHandle`."""
    if depth > 64:
        return LocalHandle(value, what)
    if isinstance(value, _ATOMS):
        return value
    if isinstance(value, torch.Tensor):
        if value.layout not in (torch.strided, torch.sparse_coo) or value.is_quantized or value.is_nested:
            return LocalHandle(value, what)
        if graph and value.requires_grad:
            return value
        copied = value.detach().clone()
        if value.requires_grad and (copied.is_floating_point() or copied.is_complex()):
            copied.requires_grad_(True)
            if value.is_leaf and value.grad is not None:
                copied.grad = value.grad.detach().clone()
        return copied
    if isinstance(value, np.ndarray) and not value.dtype.hasobject:
        return value.copy()
    if isinstance(value, np.generic):
        return value
    if isinstance(value, tuple) and hasattr(type(value), "_fields"):
        return type(value)(*(_received(v, what, graph, depth + 1) for v in value))
    if type(value) in (list, tuple, set, frozenset):
        return type(value)(_received(v, what, graph, depth + 1) for v in value)
    if type(value) in (dict, collections.OrderedDict):
        out = type(value)((_received(k, what, graph, depth + 1), _received(v, what, graph, depth + 1))
                          for k, v in value.items())
        metadata = getattr(value, "_metadata", None)  # a state_dict's versions
        if metadata is not None:
            out._metadata = copy.deepcopy(metadata)
        return out
    return LocalHandle(value, what)


class LocalHandle:
    """An object of the candidate's code, as a check holds it (the in-process twin of
    `grader.sandbox.handles.RemoteHandle`): attributes, calls, items and iteration answer as the
    worker would (data copied, objects as handles), and `remote_type` names its class."""

    __slots__ = ("_obj", "_what")

    def __init__(self, obj: Any, what: str):
        object.__setattr__(self, "_obj", obj)
        object.__setattr__(self, "_what", what)

    @property
    def remote_type(self) -> str:
        cls = type(object.__getattribute__(self, "_obj"))
        return f"{cls.__module__}.{cls.__qualname__}" if cls.__module__ else cls.__qualname__

    @property
    def remote_class(self) -> str:
        return type(object.__getattribute__(self, "_obj")).__qualname__

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        obj, what = object.__getattribute__(self, "_obj"), object.__getattribute__(self, "_what")
        return _received(getattr(obj, name), f"{what}.{name}")

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(object.__getattribute__(self, "_obj"), name, _sent(value, None, None))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        obj, what = object.__getattribute__(self, "_obj"), object.__getattribute__(self, "_what")
        return _received(obj(*_sent(args, None, None), **_sent(kwargs, None, None)), f"{what}()", graph=True)

    def __len__(self) -> int:
        return len(object.__getattribute__(self, "_obj"))

    def __getitem__(self, key: Any) -> Any:
        obj, what = object.__getattribute__(self, "_obj"), object.__getattribute__(self, "_what")
        return _received(obj[_sent(key, None, None)], f"{what}[{key!r}]")

    def __iter__(self) -> Any:
        what = object.__getattribute__(self, "_what")
        return (_received(item, f"next({what})") for item in object.__getattribute__(self, "_obj"))

    def __bool__(self) -> bool:
        return bool(object.__getattribute__(self, "_obj"))

    def __repr__(self) -> str:
        obj = object.__getattribute__(self, "_obj")
        return f"<local {type(obj).__qualname__}: {obj!r}>"[:400]
